import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomicSync } from '../../node/fs/write-file-atomic.js';

/**
 * `http-tokens.json` in the user's toolgate folder: the sha256 of every
 * workspace token this user's toolgate generated, by the token file's path.
 * A workspace's `.toolgate/http-token` can arrive with the repository (an
 * archive keeps its mode 0600), and a token the repository's author wrote is
 * one they know: only a token recorded here is reused. The folder is private
 * to the gateway, so no tool writes a record here.
 */
export function tokenRecordPath(userFolder: string): string {
  return join(userFolder, 'http-tokens.json');
}

/** Whether `token` is the one this user's toolgate last generated at `file`. */
export function isRecordedToken(record: string, file: string, token: string): boolean {
  return readRecord(record)[resolve(file)] === sha256(token);
}

/** Remember `token` as the one generated at `file`; the record is rewritten whole, atomically, mode 0600. */
export function recordToken(record: string, file: string, token: string): void {
  const entries = readRecord(record);
  entries[resolve(file)] = sha256(token);
  mkdirSync(join(record, '..'), { recursive: true, mode: 0o700 });
  writeFileAtomicSync(record, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
}

function readRecord(record: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(record, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    // Missing or unreadable: no token is vouched for, so a saved one is replaced (fails closed).
    return {};
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
