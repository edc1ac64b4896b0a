import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { CliError } from '../cli-error.js';

/** A settings or policy file is a few kilobytes; past this it is refused rather than read into memory. */
export const POLICY_IMPORT_MAX_BYTES = 1024 * 1024;

export interface PolicyImportText {
  readonly text: string;
  /** The hex SHA-256 of the bytes `text` was decoded from: what `policy.imports[].sha256` pins. */
  readonly sha256: string;
}

/**
 * Read a policy file to import, once: the digest is of the very bytes that
 * are parsed, so a file swapped between a check and a read cannot pass one
 * content's pin with another's rules. A path that leads to anything but a
 * regular file (a FIFO would block the start, `/dev/zero` never ends), a file
 * past `POLICY_IMPORT_MAX_BYTES`, or bytes that are not UTF-8 (a decoder
 * would turn them into replacement characters a reader of the file never
 * wrote) are refused.
 */
export async function readPolicyImport(file: string): Promise<PolicyImportText> {
  const refuse = (problem: string): never => {
    throw new CliError('config', `Policy import ${file} ${problem}.`);
  };
  let handle;
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return refuse('cannot be read');
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return refuse('is not a regular file');
    if (stat.size > POLICY_IMPORT_MAX_BYTES) return refuse(`is larger than ${String(POLICY_IMPORT_MAX_BYTES)} bytes`);
    const buffer = Buffer.alloc(POLICY_IMPORT_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length);
      if (bytesRead === 0) break;
      length += bytesRead;
      // A file that grew after its size was read is still held to the bound.
      if (length > POLICY_IMPORT_MAX_BYTES) return refuse(`is larger than ${String(POLICY_IMPORT_MAX_BYTES)} bytes`);
    }
    const bytes = buffer.subarray(0, length);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return refuse('is not UTF-8');
    }
    return { text, sha256: createHash('sha256').update(bytes).digest('hex') };
  } finally {
    await handle.close();
  }
}
