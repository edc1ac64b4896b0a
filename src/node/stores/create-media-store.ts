import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { isPlainMediaType, mediaDigestOf, ToolUnavailableError, type MediaHandle, type MediaStore } from '../../core/internal.js';
import { readStoreFile } from './read-store-file.js';
import { writeFileAtomic } from '../fs/write-file-atomic.js';

/** What one store keeps at most: a hundred screenshots of a megabyte and more, or eighteen of the largest a client is sent (7 MiB). */
export const DEFAULT_MAX_MEDIA_BYTES = 128 * 1024 * 1024;
/**
 * What each stored item costs beyond its bytes: its two files (the bytes and the type), a block of the disk each at
 * least. Tiny media would otherwise fit the budget by the million, each two files.
 */
const ENTRY_COST_BYTES = 8192;

export interface MediaStoreOptions {
  /**
   * The most bytes of media the store keeps at once of what it stored itself (default 128 MiB). Past it the media it
   * stored longest ago go first; media larger than the whole budget are not stored. Without it an upstream screenshot
   * tool called again and again (a read asks no one) filled the disk at the speed of its calls: every screenshot is
   * new bytes under a new digest. Media a replay or the console asks for after they went are reported missing, as
   * media the retention sweep removed are.
   */
  readonly maxBytes?: number;
}

/**
 * A content-addressed media store: the handle is `media:sha256:<hex>` of the
 * bytes, so the same bytes always get the same handle and a handle can only
 * name bytes the store holds, and a read re-hashes them. Writes are atomic
 * (temp file, then rename); reads never follow a link. Bounded by `maxBytes`.
 */
export function createMediaStore(directory: string, options: MediaStoreOptions = {}): MediaStore {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  // Made here, synchronously: a folder still being made on the thread pool would race the host's close removing the spill folder.
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  // What this store stored and keeps, by digest, oldest first (storing the same bytes again makes them the newest), and
  // what they cost (`ENTRY_COST_BYTES` each beyond their bytes), written or being written: reserved before any await, so
  // puts side by side share one budget.
  const kept = new Map<string, { readonly bytes: number; written: boolean }>();
  let held = 0;
  const forget = async (digest: string): Promise<void> => {
    const entry = kept.get(digest);
    if (entry === undefined) return;
    kept.delete(digest);
    held -= entry.bytes;
    await Promise.all([rm(path.join(directory, digest), { force: true }), rm(path.join(directory, `${digest}.type`), { force: true })]);
  };
  return {
    async put(bytes, mediaType) {
      const type = isPlainMediaType(mediaType) ? mediaType : 'application/octet-stream';
      const cost = bytes.byteLength + ENTRY_COST_BYTES;
      if (cost > maxBytes) throw new ToolUnavailableError('mediaStore', 'mediaStore', `the media (${bytes.byteLength} bytes) do not fit the media store's ${maxBytes} bytes`);
      const digest = createHash('sha256').update(bytes).digest('hex');
      const known = kept.get(digest);
      kept.delete(digest);
      const entry = known ?? { bytes: cost, written: false };
      kept.set(digest, entry);
      if (known === undefined) held += entry.bytes;
      // The oldest written media make room; media still being written are never removed under their writer.
      for (const [oldest, other] of kept) {
        if (held <= maxBytes) break;
        if (oldest !== digest && other.written) await forget(oldest);
      }
      try {
        await writeFileAtomic(path.join(directory, `${digest}.type`), type);
        await writeFileAtomic(path.join(directory, digest), bytes);
      } catch (error) {
        if (known === undefined) await forget(digest);
        throw error;
      }
      entry.written = true;
      const handle: MediaHandle = { handle: `media:sha256:${digest}`, mediaType: type, bytes: bytes.byteLength };
      return handle;
    },
    async get(handle) {
      const digest = mediaDigestOf(handle);
      if (digest === undefined) return undefined;
      const [bytes, type] = await Promise.all([readStoreFile(path.join(directory, digest)), readStoreFile(path.join(directory, `${digest}.type`))]);
      // Content-addressed means checked: bytes that do not hash to their handle are not the handle's.
      if (bytes === undefined || type === undefined || createHash('sha256').update(bytes).digest('hex') !== digest) return undefined;
      const mediaType = type.toString('utf8');
      return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), mediaType: isPlainMediaType(mediaType) ? mediaType : 'application/octet-stream' };
    },
  };
}
