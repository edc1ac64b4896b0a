import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * A store's own file, read whole: opened with `O_NOFOLLOW` and required to be
 * a regular file, so a link planted in the store (a command run without the
 * OS sandbox can plant one) never serves bytes from elsewhere. `undefined`
 * when it does not exist, or is a link or anything but a file.
 */
export async function readStoreFile(file: string): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
