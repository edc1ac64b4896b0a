import { createHash, subtle } from 'node:crypto';
import { constants } from 'node:fs';
import type { FileRead, MediaStore, ResolvedPath } from '../../core/internal.js';
import { hostDenial, hostFailure } from '../errors/host-denial.js';
import { decodeText, sniffMediaType } from '../stores/sniff-media-type.js';
import type { FsJail } from './fs-jail.js';
import { openVerified } from './open-verified.js';
import { openAsResolved, resolveJailedPath, sameTarget } from './resolve-jailed-path.js';

export interface ReadJailedFileOptions {
  readonly jail: FsJail;
  readonly path: string;
  readonly maxBytes: number;
  readonly mediaStore: MediaStore;
  /** First line, 1-based. */
  readonly offset?: number | undefined;
  readonly limit?: number | undefined;
  readonly tool?: string | undefined;
  /** The target as resolved before policy and approval (see `resolveJailedPath`). */
  readonly expected?: ResolvedPath | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The raw bytes of a jailed regular file, read through a verified descriptor. */
export async function readJailedBytes(
  jail: FsJail,
  requested: string,
  maxBytes: number,
  tool: string | undefined,
  expected: ResolvedPath | undefined,
): Promise<{ bytes: Buffer; size: number }> {
  const target = resolveJailedPath(jail, requested, tool, expected);
  if (target.missing.length > 0) throw hostFailure(tool, 'the file does not exist');
  // One open by the resolved real path: O_NOFOLLOW refuses a symlinked last
  // component, the descriptor check refuses a swapped parent, and the file
  // opened must be the very one resolved.
  const handle = await openAsResolved(target, tool, () => openVerified(jail, target.absolute, constants.O_RDONLY | constants.O_NONBLOCK, tool));
  try {
    const stat = await handle.stat();
    sameTarget(target, stat, tool);
    if (!stat.isFile()) throw hostDenial(tool, 'not_a_file');
    // Read up to the size `stat` gives, never to the end: /proc's files (another process's environ, the
    // gateway's own in the `full` tier) give 0 and read as empty; read to the end, they would give its secrets.
    const length = Math.min(stat.size, maxBytes);
    const bytes = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(bytes, filled, length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: bytes.subarray(0, filled), size: stat.size };
  } finally {
    await handle.close();
  }
}

/**
 * Read a jailed file. Text comes back as UTF-8 (optionally a line window);
 * binary content goes to the media store and comes back as a handle, never
 * inline. A file over the cap is cut (`partial`) when text, refused when binary.
 */
export async function readJailedFile(options: ReadJailedFileOptions): Promise<FileRead> {
  options.signal?.throwIfAborted();
  const { bytes, size } = await readJailedBytes(options.jail, options.path, options.maxBytes, options.tool, options.expected);
  const cut = size > bytes.byteLength;
  const digest = cut ? undefined : sha256Of(bytes);
  const text = decodeText(cut ? trimPartialCharacter(bytes) : bytes);
  const sha256 = await digest;
  if (text === undefined) {
    if (cut) throw hostDenial(options.tool, 'too_large');
    const media = await options.mediaStore.put(bytes, sniffMediaType(bytes));
    return sha256 === undefined ? { media, bytes: size, partial: false } : { media, bytes: size, partial: false, sha256 };
  }
  const windowed = lineWindow(text, options.offset, options.limit);
  const read = { content: windowed.content, bytes: size, partial: cut || windowed.cut };
  return sha256 === undefined ? read : { ...read, sha256 };
}

/** From this size a file's digest is taken on the thread pool, while this thread decodes the text. */
const POOLED_DIGEST_BYTES = 64 * 1024;

/**
 * The SHA-256 of a file read whole. A small file's is taken here, at once; a
 * large file's on the thread pool (Web Crypto), beside the decoding: for a
 * megabyte each takes about as long as the other, so the read waits for one
 * of them instead of both. Below the threshold the round trip to the pool
 * costs more than the digest.
 */
function sha256Of(bytes: Buffer): string | Promise<string> {
  if (bytes.byteLength < POOLED_DIGEST_BYTES) return createHash('sha256').update(bytes).digest('hex');
  return subtle.digest('SHA-256', bytes).then((digest) => Buffer.from(digest).toString('hex'));
}

/** A cap may fall inside a multi-byte character: drop the incomplete tail so the text still decodes. */
function trimPartialCharacter(bytes: Buffer): Buffer {
  let end = bytes.byteLength;
  let back = 0;
  while (end > 0 && back < 4 && ((bytes[end - 1] ?? 0) & 0xc0) === 0x80) {
    end -= 1;
    back += 1;
  }
  if (end > 0 && ((bytes[end - 1] ?? 0) & 0x80) !== 0) end -= 1;
  return bytes.subarray(0, end);
}

function lineWindow(text: string, offset: number | undefined, limit: number | undefined): { content: string; cut: boolean } {
  if (offset === undefined && limit === undefined) return { content: text, cut: false };
  const lines = text.split('\n');
  const start = Math.max(0, (offset ?? 1) - 1);
  const end = limit === undefined ? lines.length : Math.min(lines.length, start + limit);
  return { content: lines.slice(start, end).join('\n'), cut: start > 0 || end < lines.length };
}
