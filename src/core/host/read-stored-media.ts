import { sha256BytesHex } from '../digest/sha256.js';
import { mediaDigestOf } from './media-handle.js';
import type { MediaHandle, MediaStore } from './tool-host.js';

/** Why stored media are not an attachment's: the store does not hold them (or cannot read), or holds other bytes under the handle. */
export type StoredMediaProblem = 'media_missing' | 'media_changed';

export type StoredMedia = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly problem: StoredMediaProblem };

/**
 * An attachment's bytes from a media store, only when the store holds them
 * intact: the recorded size, hashing to the handle. The Node store checks its
 * own reads; this checks again, since any store may be plugged in, and a
 * replay and the gateway both send on only what the handle names.
 */
export async function readStoredMedia(attachment: MediaHandle, store: MediaStore | undefined): Promise<StoredMedia> {
  const digest = mediaDigestOf(attachment.handle);
  let stored: Awaited<ReturnType<MediaStore['get']>>;
  try {
    stored = digest === undefined ? undefined : await store?.get(attachment.handle);
  } catch {
    // A store that cannot read (a replay host without one refuses every read) holds nothing to send.
    stored = undefined;
  }
  if (stored === undefined) return { ok: false, problem: 'media_missing' };
  const intact = stored.bytes.byteLength === attachment.bytes && (await sha256BytesHex(stored.bytes)) === digest;
  return intact ? { ok: true, bytes: stored.bytes } : { ok: false, problem: 'media_changed' };
}
