import { describe, expect, it } from 'vitest';
import { sha256BytesHex } from '../digest/sha256.js';
import { readStoredMedia } from './read-stored-media.js';
import type { MediaStore } from './tool-host.js';

const PICTURE = new TextEncoder().encode('a picture');

async function storeHolding(bytes: Uint8Array): Promise<{ store: MediaStore; handle: string }> {
  const handle = `media:sha256:${await sha256BytesHex(PICTURE)}`;
  const store: MediaStore = { put: () => Promise.reject(new Error('read only')), get: (asked) => Promise.resolve(asked === handle ? { bytes, mediaType: 'image/png' } : undefined) };
  return { store, handle };
}

describe('readStoredMedia', () => {
  it('gives the bytes a store holds intact under the handle', async () => {
    const { store, handle } = await storeHolding(PICTURE);
    expect(await readStoredMedia({ handle, mediaType: 'image/png', bytes: PICTURE.byteLength }, store)).toEqual({ ok: true, bytes: PICTURE });
  });

  it('missing: no store, a store without them, a store that cannot read, a handle that is not content-addressed', async () => {
    const { store, handle } = await storeHolding(PICTURE);
    const failing: MediaStore = { put: () => Promise.reject(new Error('no')), get: () => Promise.reject(new Error('refused')) };
    const attachment = { handle, mediaType: 'image/png', bytes: PICTURE.byteLength };
    for (const [asked, from] of [[attachment, undefined], [{ ...attachment, handle: `media:sha256:${'0'.repeat(64)}` }, store], [attachment, failing], [{ ...attachment, handle: 'media:fake:1' }, store]] as const) {
      expect(await readStoredMedia(asked, from)).toEqual({ ok: false, problem: 'media_missing' });
    }
  });

  it('changed: other bytes under the handle, or not the recorded size', async () => {
    const { store, handle } = await storeHolding(new TextEncoder().encode('a pictura'));
    expect(await readStoredMedia({ handle, mediaType: 'image/png', bytes: PICTURE.byteLength }, store)).toEqual({ ok: false, problem: 'media_changed' });
    const { store: intact } = await storeHolding(PICTURE);
    expect(await readStoredMedia({ handle, mediaType: 'image/png', bytes: PICTURE.byteLength + 1 }, intact)).toEqual({ ok: false, problem: 'media_changed' });
  });
});
