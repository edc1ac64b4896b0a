import { linkSync, rmSync } from 'node:fs';
import { writeTemporaryBesideSync, type WriteFileAtomicOptions } from './write-file-atomic.js';

/** Whether the call made the file, or found something already at its name and left it as it was. */
export type CreateFileIfAbsentResult = 'created' | 'exists';

/**
 * Create `file` with `data` only if nothing is at its name yet: the whole
 * content goes to a new private temporary file beside it (mode 0600 unless
 * told otherwise), which is then hard-linked into place. A concurrent reader
 * sees no file or a complete one, never a part; of two processes racing to
 * create it, one creates and the other finds it. Anything already at the
 * name — a file, a folder, a symbolic link, dangling or not — is `exists`:
 * a link is never written through, and the caller judges what it found.
 */
export function createFileIfAbsentSync(file: string, data: string | Uint8Array, options: WriteFileAtomicOptions = {}): CreateFileIfAbsentResult {
  const temporary = writeTemporaryBesideSync(file, data, options);
  try {
    linkSync(temporary, file);
    return 'created';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}
