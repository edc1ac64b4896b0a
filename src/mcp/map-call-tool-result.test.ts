import { describe, expect, it } from 'vitest';
import { unwrapUntrusted, type MediaStore } from '../core/internal.js';
import { createToolRegistry } from '../core/internal.js';
import { mapCallToolResult } from './map-call-tool-result.js';

const png = Buffer.from('png').toString('base64');

function recordingStore(): MediaStore & { puts: string[] } {
  const puts: string[] = [];
  return {
    puts,
    put: (bytes, mediaType) => {
      puts.push(mediaType);
      return Promise.resolve({ handle: `media:sha256:${'b'.repeat(64)}`, mediaType, bytes: bytes.byteLength });
    },
    get: () => Promise.resolve(undefined),
  };
}

/** The value and attachments the pipeline makes of a mapped result. */
async function mapped(result: Parameters<typeof mapCallToolResult>[0], store: MediaStore): Promise<{ value: unknown; attachments: unknown }> {
  const value = await mapCallToolResult(result, store);
  const registry = createToolRegistry({ tools: [{ name: 'up', description: 'Upstream.', input: { type: 'object' }, dispatch: () => value }] });
  const outcome = await registry.dispatch({ callId: 'c', name: 'up', arguments: {} }, { grantedTools: ['up'] });
  return { value: outcome.ok ? outcome.value : undefined, attachments: outcome.ok ? outcome.attachments?.map((entry) => unwrapUntrusted(entry)) : undefined };
}

describe('mapCallToolResult', () => {
  it('stores each image, audio and blob and attaches it by handle, with a line naming the handle in the text', async () => {
    const store = recordingStore();
    const result = await mapped({ content: [{ type: 'text', text: 'the screen' }, { type: 'image', data: png, mimeType: 'IMAGE/PNG' }] }, store);
    expect(result.value).toBe(`the screen\n[image: image/png, 3 bytes, media:sha256:${'b'.repeat(64)}]`);
    expect(result.attachments).toEqual([{ handle: `media:sha256:${'b'.repeat(64)}`, mediaType: 'image/png', bytes: 3 }]);
  });

  it('a media type that is not a plain type/subtype is stored as opaque bytes', async () => {
    const store = recordingStore();
    await mapped({ content: [{ type: 'image', data: png, mimeType: 'image/png; charset="x"' }, { type: 'audio', data: png, mimeType: 'audio/wav\r\nX: 1' }] }, store);
    expect(store.puts).toEqual(['application/octet-stream', 'application/octet-stream']);
  });

  it('with a structured value, that value alone is the result: media inside it stay JSON, media beside it are neither stored nor attached', async () => {
    const store = recordingStore();
    const structuredContent = { image: { type: 'image', data: png, mimeType: 'image/png' } };
    const result = await mapped({ content: [{ type: 'image', data: png, mimeType: 'image/png' }], structuredContent }, store);
    expect(result).toEqual({ value: structuredContent, attachments: undefined });
    expect(store.puts).toEqual([]);
  });
});
