import { constants } from 'node:fs';
import { lstat, open, readlink, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { hostDenial } from '../errors/host-denial.js';
import { isInside, type FsJail } from './fs-jail.js';

/**
 * Whether an open reads the descriptor's own path back (`/proc/self/fd/N`)
 * and refuses one that is not the path resolved: then no parent swapped for
 * a link can carry an open elsewhere, whatever happened since resolution.
 */
export const verifiesDescriptorPath = process.platform === 'linux';

/** An open directory and the path that reaches *this* directory, whatever happens to its name. */
export interface VerifiedDirectory {
  readonly handle: FileHandle;
  /** The real path it was opened as. */
  readonly real: string;
  /** `/proc/self/fd/N` on Linux (immune to a later parent swap); the real path elsewhere. */
  readonly via: string;
}

/**
 * Open `real` with `O_NOFOLLOW` and, on Linux, read the descriptor's own path
 * back through `/proc/self/fd/N`: if a parent directory was swapped for a
 * symlink between resolution and open, the kernel's answer differs from the
 * path we resolved, and the descriptor is closed unread.
 */
export async function openVerified(jail: FsJail, real: string, flags: number, tool: string | undefined, mode?: number): Promise<FileHandle> {
  return verifyDescriptor(jail, await openNoFollow(real, flags, tool, mode), real, tool);
}

export async function openVerifiedDirectory(jail: FsJail, real: string, tool: string | undefined): Promise<VerifiedDirectory> {
  try {
    const handle = await openVerified(jail, real, constants.O_RDONLY | constants.O_DIRECTORY, tool);
    return { handle, real, via: verifiesDescriptorPath ? `/proc/self/fd/${handle.fd}` : real };
  } catch (error) {
    // `O_DIRECTORY` wins over `O_NOFOLLOW`: a link where the folder was is ENOTDIR too, and is said to be a link.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw hostDenial(tool, (await isLink(real)) ? 'symlink_refused' : 'not_a_directory', error);
    throw error;
  }
}

async function isLink(candidate: string): Promise<boolean> {
  try {
    return (await lstat(candidate)).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Open `name` inside an already-verified directory. On Linux the path goes
 * through the directory's descriptor, so only the last component is looked
 * up by name, and `O_NOFOLLOW` refuses it when it is a symlink.
 */
export async function openInDirectory(jail: FsJail, directory: VerifiedDirectory, name: string, flags: number, tool: string | undefined, mode?: number): Promise<FileHandle> {
  if (name.length === 0 || name === '.' || name === '..' || name.includes('/')) throw hostDenial(tool, 'invalid_path');
  const handle = await openNoFollow(`${directory.via}/${name}`, flags, tool, mode);
  return verifyDescriptor(jail, handle, path.join(directory.real, name), tool);
}

/**
 * Create `name` anew (`O_CREAT | O_EXCL`) inside an already-verified
 * directory and verify it as `openInDirectory` does. `O_EXCL` means the
 * entry is this call's own: when the descriptor's path then reads back
 * otherwise (the directory moved since it was opened), the entry is removed
 * before the refusal, so no file a refused write made is left behind.
 */
export async function createInDirectory(jail: FsJail, directory: VerifiedDirectory, name: string, flags: number, tool: string | undefined, mode: number): Promise<FileHandle> {
  if (name.length === 0 || name === '.' || name === '..' || name.includes('/')) throw hostDenial(tool, 'invalid_path');
  const entry = `${directory.via}/${name}`;
  const handle = await openNoFollow(entry, flags | constants.O_CREAT | constants.O_EXCL, tool, mode);
  try {
    return await verifyDescriptor(jail, handle, path.join(directory.real, name), tool);
  } catch (error) {
    await unlink(entry).catch(() => undefined);
    throw error;
  }
}

async function openNoFollow(target: string, flags: number, tool: string | undefined, mode?: number): Promise<FileHandle> {
  try {
    return await open(target, flags | constants.O_NOFOLLOW, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw hostDenial(tool, 'symlink_refused', error);
    throw error;
  }
}

/** The kernel's own answer for where the descriptor points must be the path we resolved. */
async function verifyDescriptor(jail: FsJail, handle: FileHandle, expected: string, tool: string | undefined): Promise<FileHandle> {
  if (!verifiesDescriptorPath) return handle;
  try {
    const actual = await readlink(`/proc/self/fd/${handle.fd}`);
    if (actual !== expected || !isInside(jail.root, actual)) throw hostDenial(tool, 'symlink_refused');
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
