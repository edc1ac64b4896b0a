import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MediaHandle, MediaStore } from '../core/internal.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { DEFAULT_MAX_MEDIA_BYTES, mediaContentBlocks } from './media-content-blocks.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);
const handleOf = (bytes: Uint8Array, mediaType: string): MediaHandle => ({ handle: `media:sha256:${createHash('sha256').update(bytes).digest('hex')}`, mediaType, bytes: bytes.byteLength });

/** A store that answers whatever `files` holds under a handle, checked or not: the blocks must check. */
function storeOf(files: Record<string, Uint8Array>): MediaStore & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    put: () => Promise.reject(new Error('read only')),
    get: (handle) => {
      reads.push(handle);
      const bytes = files[handle];
      return Promise.resolve(bytes === undefined ? undefined : { bytes, mediaType: 'text/html' });
    },
  };
}

describe('mediaContentBlocks', () => {
  it('sends at most as much by default as an answer line the SDK\'s stdio client reads whole', async () => {
    const image = new Uint8Array(DEFAULT_MAX_MEDIA_BYTES).fill(0xff);
    const attachment = handleOf(image, 'image/png');
    const blocks = await mediaContentBlocks({ attachments: [attachment], mediaStore: storeOf({ [attachment.handle]: image }), maxBytes: DEFAULT_MAX_MEDIA_BYTES });
    expect(blocks).toHaveLength(1);
    // The text the model reads is bounded to 32 KiB, escaped at most sixfold.
    const line = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'x'.repeat(6 * 32 * 1024) }, ...blocks] } });
    expect(line.length).toBeLessThan(STDIO_DEFAULT_MAX_BUFFER_SIZE);
  });

  it('sends an image, an audio clip and any other type as an embedded resource blob, with the attachment’s own type', async () => {
    const png = bytesOf('png'), wav = bytesOf('wav'), pdf = bytesOf('pdf');
    const image = handleOf(png, 'image/png'), audio = handleOf(wav, 'audio/wav'), document = handleOf(pdf, 'application/pdf');
    const store = storeOf({ [image.handle]: png, [audio.handle]: wav, [document.handle]: pdf });
    expect(await mediaContentBlocks({ attachments: [image, audio, document], mediaStore: store, maxBytes: 100 })).toEqual([
      { type: 'image', data: Buffer.from('png').toString('base64'), mimeType: 'image/png' },
      { type: 'audio', data: Buffer.from('wav').toString('base64'), mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: document.handle, mimeType: 'application/pdf', blob: Buffer.from('pdf').toString('base64') } },
    ]);
  });

  it('sends no bytes that do not hash to the handle or are not the attachment’s size, and none the store lacks', async () => {
    const png = bytesOf('png');
    const image = handleOf(png, 'image/png');
    for (const [files, attachment] of [
      [{ [image.handle]: bytesOf('other bytes') }, image],
      [{ [image.handle]: png }, { ...image, bytes: 4 }],
      [{}, image],
    ] as const) {
      expect(await mediaContentBlocks({ attachments: [attachment], mediaStore: storeOf(files), maxBytes: 100 })).toEqual([
        { type: 'text', text: `[media not sent: ${image.handle} is not in the media store intact]` },
      ]);
    }
    expect(await mediaContentBlocks({ attachments: [image], mediaStore: undefined, maxBytes: 100 })).toEqual([{ type: 'text', text: `[media not sent: ${image.handle} is not in the media store intact]` }]);
    const failing: MediaStore = { put: () => Promise.reject(new Error('no')), get: () => Promise.reject(new Error('EIO')) };
    expect(await mediaContentBlocks({ attachments: [image], mediaStore: failing, maxBytes: 100 })).toHaveLength(1);
  });

  it('reads no handle that is not content-addressed, and passes on no type that is not plain', async () => {
    const png = bytesOf('png');
    const store = storeOf({ 'media:fake:3': png, [handleOf(png, 'x').handle]: png });
    const blocks = await mediaContentBlocks({ attachments: [{ handle: 'media:fake:3', mediaType: 'image/png', bytes: 3 }, handleOf(png, 'image/png" onload="x')], mediaStore: store, maxBytes: 100 });
    expect(store.reads).toEqual([handleOf(png, 'x').handle]);
    expect(blocks).toEqual([
      { type: 'text', text: '[media not sent: an attachment without a content-addressed handle is not in the media store intact]' },
      { type: 'resource', resource: { uri: handleOf(png, 'x').handle, mimeType: 'application/octet-stream', blob: Buffer.from('png').toString('base64') } },
    ]);
  });

  it('past maxBytes in all, reads nothing and says so in one line', async () => {
    const big = bytesOf('x'.repeat(60)), small = bytesOf('y'.repeat(50));
    const store = storeOf({});
    const attachments = [handleOf(big, 'image/png'), handleOf(small, 'image/png')];
    expect(await mediaContentBlocks({ attachments, mediaStore: store, maxBytes: 100 })).toEqual([{ type: 'text', text: '[media not sent: the media of this result exceed maxMediaBytes (100 bytes)]' }]);
    expect(await mediaContentBlocks({ attachments: attachments.slice(0, 1), mediaStore: store, maxBytes: 0 })).toHaveLength(1);
    expect(store.reads).toEqual([]);
  });
});
