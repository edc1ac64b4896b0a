import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sha256BytesHex } from '../digest/sha256.js';
import type { MediaHandle, MediaStore } from '../host/tool-host.js';
import type { RecordedResult } from '../journal/journal-types.js';
import type { ToolReceipt } from '../receipts/receipt-types.js';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { defineTool } from '../tools/define-tool.js';
import { unwrapUntrusted } from '../untrusted/untrusted.js';
import { memoryJournal } from './__fixtures__/pipeline-fixtures.js';
import { restoreAttachments } from './restore-attachments.js';
import { withAttachments } from './split-attachments.js';

/** A content-addressed store in memory; `files` is what it holds, by handle, for a test to change. */
function memoryMediaStore(): MediaStore & { readonly files: Map<string, { bytes: Uint8Array; mediaType: string }> } {
  const files = new Map<string, { bytes: Uint8Array; mediaType: string }>();
  return {
    files,
    async put(bytes, mediaType) {
      const handle = `media:sha256:${await sha256BytesHex(bytes)}`;
      files.set(handle, { bytes, mediaType });
      return { handle, mediaType, bytes: bytes.byteLength };
    },
    get: (handle) => Promise.resolve(files.get(handle)),
  };
}

const PICTURE = new TextEncoder().encode('a picture');

/** The recording without its list of attachments. */
function unlisted(recorded: RecordedResult): RecordedResult {
  const { attachments: _attachments, ...rest } = recorded;
  return rest;
}

async function recordedShot(): Promise<{ store: ReturnType<typeof memoryMediaStore>; recorded: RecordedResult; handle: MediaHandle }> {
  const store = memoryMediaStore();
  const handle = await store.put(PICTURE, 'image/png');
  const receipt = { attachments: [handle] } as unknown as ToolReceipt;
  return { store, handle, recorded: { ok: true, value: 'shot', content: 'shot', attachments: [handle], receipt } };
}

describe('restoreAttachments', () => {
  it('restores the recorded handles while the store holds their bytes intact', async () => {
    const { store, recorded, handle } = await recordedShot();
    expect(await restoreAttachments({ tool: 'shot', recorded, mediaStore: store })).toEqual({ ok: true, attachments: [handle] });
    // A recording without media needs no store.
    expect(await restoreAttachments({ tool: 'shot', recorded: { ...unlisted(recorded), receipt: {} as ToolReceipt }, mediaStore: undefined })).toEqual({ ok: true, attachments: undefined });
  });

  it('bytes the store no longer holds, or no store, or a store that cannot read: media_missing', async () => {
    const { store, recorded, handle } = await recordedShot();
    const failing: MediaStore = { put: () => Promise.reject(new Error('no')), get: () => Promise.reject(new Error('refused')) };
    for (const mediaStore of [undefined, failing, (store.files.delete(handle.handle), store)]) {
      const restored = await restoreAttachments({ tool: 'shot', recorded, mediaStore });
      expect(restored.ok ? undefined : { code: restored.error.code, reason: restored.error.reason }).toEqual({ code: 'REPLAY_MISS', reason: 'media_missing' });
      expect(restored.ok ? '' : restored.error.message).toBe('Tool "shot" returned media that the media store no longer holds intact (retention may have removed them, or they were changed): the recorded call is not replayed.');
    }
  });

  it('bytes a store returns that do not hash to the handle, or are not the recorded size: media_changed', async () => {
    const { store, recorded, handle } = await recordedShot();
    store.files.set(handle.handle, { bytes: new TextEncoder().encode('a pictura'), mediaType: 'image/png' });
    expect(await restoreAttachments({ tool: 'shot', recorded, mediaStore: store })).toMatchObject({ ok: false, error: { code: 'REPLAY_MISS', reason: 'media_changed' } });
    const { store: other, recorded: longer } = await recordedShot();
    const resized = { ...handle, bytes: handle.bytes + 1 };
    const edited = { ...longer, attachments: [resized], receipt: { attachments: [resized] } as unknown as ToolReceipt };
    expect(await restoreAttachments({ tool: 'shot', recorded: edited, mediaStore: other })).toMatchObject({ ok: false, error: { reason: 'media_changed' } });
  });

  it('a recorded list its receipt does not vouch for, or that is no list of content-addressed handles, is not restored', async () => {
    const { store, recorded, handle } = await recordedShot();
    const elsewhere = await store.put(new TextEncoder().encode('another stored file'), 'image/png');
    const cases: RecordedResult[] = [
      { ...recorded, attachments: [elsewhere] },
      { ...recorded, attachments: [] },
      { ...recorded, attachments: [handle, handle] },
      { ...recorded, attachments: [{ ...handle, mediaType: 'text/html' }] },
      unlisted(recorded),
      { ...recorded, attachments: [{ ...handle, handle: 'media:fake:9' }], receipt: { attachments: [{ ...handle, handle: 'media:fake:9' }] } as unknown as ToolReceipt },
    ];
    for (const edited of cases) {
      expect(await restoreAttachments({ tool: 'shot', recorded: edited, mediaStore: store }), JSON.stringify(edited.attachments)).toMatchObject({
        ok: false,
        error: { code: 'REPLAY_MISS', reason: 'attachments_unvouched' },
      });
    }
  });

  it('through the pipeline: a recorded call replays its media from the store; with the bytes gone it is refused and the body never runs again', async () => {
    const store = memoryMediaStore();
    const journal = memoryJournal();
    let runs = 0;
    const shot = defineTool({
      name: 'shot',
      description: 'Take a screenshot.',
      input: z.object({}),
      journal: 'effect',
      dispatch: async (_args, host) => {
        runs += 1;
        const handle = await host.mediaStore?.put(PICTURE, 'image/png');
        return withAttachments('the screen', handle === undefined ? [] : [handle]);
      },
    });
    const registry = createToolRegistry({ tools: [shot], host: { mediaStore: store }, journal });
    const call = { callId: 'c1', name: 'shot', arguments: {} };
    const first = await registry.dispatch(call, { grantedTools: ['shot'] });
    const again = await registry.dispatch(call, { grantedTools: ['shot'] });
    expect(runs).toBe(1);
    expect(again.receipt.status).toBe('replayed');
    const attachmentsOf = (outcome: typeof first): unknown => outcome.ok && outcome.attachments?.map((entry) => unwrapUntrusted(entry));
    expect(attachmentsOf(again)).toEqual(attachmentsOf(first));
    expect(again.receipt.attachments).toEqual(first.receipt.attachments);

    store.files.clear();
    const gone = await registry.dispatch(call, { grantedTools: ['shot'] });
    expect(gone.ok ? undefined : { code: gone.error.code, reason: (gone.error as { reason?: string }).reason }).toEqual({ code: 'REPLAY_MISS', reason: 'media_missing' });
    expect(runs).toBe(1);
  });
});
