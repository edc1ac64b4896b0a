import { isAscii } from 'node:buffer';

const signatures: readonly { readonly bytes: readonly number[]; readonly offset?: number; readonly mediaType: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], mediaType: 'image/png' },
  { bytes: [0xff, 0xd8, 0xff], mediaType: 'image/jpeg' },
  { bytes: [0x47, 0x49, 0x46, 0x38], mediaType: 'image/gif' },
  { bytes: [0x25, 0x50, 0x44, 0x46, 0x2d], mediaType: 'application/pdf' },
  { bytes: [0x57, 0x45, 0x42, 0x50], offset: 8, mediaType: 'image/webp' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], mediaType: 'application/zip' },
  { bytes: [0x1f, 0x8b], mediaType: 'application/gzip' },
];

/** The media type of binary content from its magic number; `application/octet-stream` when unknown. */
export function sniffMediaType(bytes: Uint8Array): string {
  for (const signature of signatures) {
    const offset = signature.offset ?? 0;
    if (signature.bytes.every((value, index) => bytes[offset + index] === value)) return signature.mediaType;
  }
  return 'application/octet-stream';
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const strictUtf8KeepingBom = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * UTF-8 text without NUL bytes, or `undefined` for binary content. A leading
 * byte order mark is dropped, as a reader expects, unless `keepBom`: text
 * that is written back (an edit) must keep it, or the file changes where no
 * card showed a change.
 *
 * Text that is all ASCII (most source files, logs, JSON) is read as Latin-1,
 * which gives the same characters for those bytes: for a megabyte the check
 * and that read take a fifth to a third of the UTF-8 decoder's time, which
 * was most of what a read of a large file cost.
 */
export function decodeText(bytes: Uint8Array, keepBom = false): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  try {
    if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    return (keepBom ? strictUtf8KeepingBom : strictUtf8).decode(bytes);
  } catch {
    // Not UTF-8, or longer than a string may be: either way, not text this host returns.
    return undefined;
  }
}
