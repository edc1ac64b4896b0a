import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { isPlainMediaType, mediaDigestOf, type MediaHandle, type MediaStore } from '../../core/internal.js';
import { readStoreFile } from './read-store-file.js';
import { writeFileAtomic } from '../fs/write-file-atomic.js';

/**
 * A content-addressed media store: the handle is `media:sha256:<hex>` of the
 * bytes, so the same bytes always get the same handle and a handle can only
 * name bytes the store holds, and a read re-hashes them. Writes are atomic
 * (temp file, then rename); reads never follow a link.
 */
export function createMediaStore(directory: string): MediaStore {
  // Made here, synchronously: a folder still being made on the thread pool would race the host's close removing the spill folder.
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  return {
    async put(bytes, mediaType) {
      const type = isPlainMediaType(mediaType) ? mediaType : 'application/octet-stream';
      const digest = createHash('sha256').update(bytes).digest('hex');
      await writeFileAtomic(path.join(directory, `${digest}.type`), type);
      await writeFileAtomic(path.join(directory, digest), bytes);
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

