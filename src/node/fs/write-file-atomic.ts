import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface WriteFileAtomicOptions {
  /** Mode of the new file (narrowed by the umask as any create is). Default 0600: most of what is written this way is private. */
  readonly mode?: number;
  /** Flush the data to disk before the rename, so a crash or power loss leaves the old file or the new one, not an empty one. Default false. */
  readonly fsync?: boolean;
}

// Exclusive and never through a link: a leftover or a planted link at the temporary name fails the write instead of being written through.
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * A fresh name beside `file`: the same folder keeps the rename on one file
 * system (so it is atomic), the random part keeps two writers in one process
 * apart, and the leading dot keeps it out of ordinary listings.
 */
function temporaryNameFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.${String(process.pid)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Replace `file` with `data` atomically: the whole content goes to a new
 * temporary file beside it, which is renamed over the target, so a reader sees
 * the old content or the new, never a part. A link at `file` is replaced, not
 * followed. On any failure the temporary file is removed and the error thrown.
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, options: WriteFileAtomicOptions = {}): void {
  const temporary = writeTemporaryBesideSync(file, data, options);
  try {
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Write `data` whole to a new temporary file beside `file` and return its
 * name, for the caller to move into place; on any failure the temporary file
 * is removed and the error thrown.
 */
export function writeTemporaryBesideSync(file: string, data: string | Uint8Array, options: WriteFileAtomicOptions = {}): string {
  const { mode = 0o600, fsync = false } = options;
  const temporary = temporaryNameFor(file);
  const fd = openSync(temporary, CREATE_NEW, mode);
  try {
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      for (let written = 0; written < bytes.byteLength; ) written += writeSync(fd, bytes, written);
      if (fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return temporary;
}

/** The asynchronous {@link writeFileAtomicSync}: same temporary name, same guarantees. */
export async function writeFileAtomic(file: string, data: string | Uint8Array, options: WriteFileAtomicOptions = {}): Promise<void> {
  const { mode = 0o600, fsync = false } = options;
  const temporary = temporaryNameFor(file);
  const handle = await open(temporary, CREATE_NEW, mode);
  try {
    try {
      await handle.writeFile(data);
      if (fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
