import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { FileWrite, ResolvedPath } from '../../core/internal.js';
import { hostDenial, hostFailure } from '../errors/host-denial.js';
import type { FsJail } from './fs-jail.js';
import { createInDirectory, openInDirectory, openVerifiedDirectory, type VerifiedDirectory } from './open-verified.js';
import { openAsResolved, refuseNonFolder, resolveJailedPath, sameFolder, sameTarget, type JailedPath } from './resolve-jailed-path.js';

export interface WriteJailedFileOptions {
  readonly jail: FsJail;
  readonly path: string;
  readonly content: string;
  readonly maxBytes: number;
  /** Write only when the current content hashes to this (absent file ⇒ mismatch). */
  readonly expectedSha256?: string | undefined;
  readonly tool?: string | undefined;
  /** The target as resolved before policy and approval (see `resolveJailedPath`). */
  readonly expected?: ResolvedPath | undefined;
  readonly signal?: AbortSignal | undefined;
}

const STALE = 'the file changed since it was read (its sha256 differs); read it again before writing';

/**
 * Write a jailed file atomically: missing parent directories are created one
 * verified component at a time; the bytes go to a temp file opened
 * `O_CREAT | O_EXCL | O_NOFOLLOW` in the target directory, then renamed over
 * the target. A symlink or a hard-linked target is refused. Every check that
 * can refuse without touching the disk runs before a folder is created; any
 * later failure (an abort, a refusal, an I/O error) removes the temp file and
 * the folders this call created that are still empty, and leaves the old
 * content intact. The entry found in the verified directory must be the one
 * resolved: a file renamed over it, or one created where none was, is
 * `target_changed`. With `expectedSha256` the current file is hashed only up to
 * `maxBytes`: a larger one is refused as `too_large`, as a read of it would be.
 */
export async function writeJailedFile(options: WriteJailedFileOptions): Promise<FileWrite> {
  const { jail, tool } = options;
  if (jail.scope === 'read-only') throw hostDenial(tool, 'scope_denied');
  const data = Buffer.from(options.content, 'utf8');
  if (data.byteLength > options.maxBytes) throw hostDenial(tool, 'too_large');
  options.signal?.throwIfAborted();
  const target = resolveJailedPath(jail, options.path, tool, options.expected);
  refuseNonFolder(target, tool, 'parent');
  // A missing target has no content to match: refuse before creating its folders.
  if (options.expectedSha256 !== undefined && target.missing.length > 0) throw hostFailure(tool, STALE);
  options.signal?.throwIfAborted();
  const name = target.missing.length > 0 ? (target.missing.at(-1) ?? '') : path.basename(target.absolute);
  const created: CreatedDirectory[] = [];
  let written = false;
  try {
    const directory = await openParent(jail, target, tool, created, options.signal);
    try {
      const existing = await statEntry(directory, name);
      // A link where the resolved file stood is what changed since, when the write is bound to that resolution.
      if (existing?.isSymbolicLink() === true) throw hostDenial(tool, target.bound ? 'target_changed' : 'symlink_refused');
      sameTarget(target, existing, tool);
      if (existing !== undefined && !existing.isFile()) throw hostDenial(tool, 'not_a_file');
      if (existing !== undefined && existing.nlink > 1) throw hostDenial(tool, 'hardlink_refused');
      if (options.expectedSha256 !== undefined) {
        if (existing === undefined) throw hostFailure(tool, STALE);
        if ((await hashEntry(jail, directory, name, options.maxBytes, tool)) !== options.expectedSha256.toLowerCase()) throw hostFailure(tool, STALE);
      }
      options.signal?.throwIfAborted();
      await replaceEntry(jail, directory, name, data, existing === undefined ? 0o644 : existing.mode & 0o7777, tool);
      written = true;
      return { bytes: data.byteLength, sha256: createHash('sha256').update(data).digest('hex'), created: existing === undefined };
    } finally {
      await directory.handle.close();
    }
  } finally {
    if (!written) await removeCreated(jail, created, tool);
  }
}

/** A folder this call created: its real path and identity, so only it is ever removed. */
interface CreatedDirectory {
  readonly real: string;
  readonly dev: number;
  readonly ino: number;
}

/**
 * The directory that will hold the file: the existing ancestor, then each
 * missing component created and verified. A component another writer created
 * first is used (and verified) but not recorded in `created`; the signal is
 * consulted after each folder, so an abort stops the creation early. For a
 * target bound to its resolution the existing ancestor must be the folder
 * resolved (`sameFolder`), and a component found already there is
 * `target_changed`: it was missing when the write was judged.
 */
async function openParent(jail: FsJail, target: JailedPath, tool: string | undefined, created: CreatedDirectory[], signal: AbortSignal | undefined): Promise<VerifiedDirectory> {
  const { existing, missing } = target;
  if (missing.length === 0) return openAsResolved(target, tool, () => openVerifiedDirectory(jail, path.dirname(target.absolute), tool));
  let directory = await openAsResolved(target, tool, () => openVerifiedDirectory(jail, existing, tool));
  if (target.bound) {
    try {
      sameFolder(target, await directory.handle.stat(), tool);
    } catch (error) {
      await directory.handle.close();
      throw error;
    }
  }
  for (const component of missing.slice(0, -1)) {
    try {
      const ours = await makeDirectory(`${directory.via}/${component}`);
      if (!ours && target.bound) throw hostDenial(tool, 'target_changed');
      const next = await openVerifiedDirectory(jail, path.join(directory.real, component), tool);
      await directory.handle.close();
      directory = next;
      if (ours) {
        const { dev, ino } = await directory.handle.stat();
        created.push({ real: directory.real, dev, ino });
      }
      signal?.throwIfAborted();
    } catch (error) {
      await directory.handle.close();
      throw error;
    }
  }
  return directory;
}

/** `mkdir`, `false` when the name already exists (whatever it is: the verified open that follows judges it). */
async function makeDirectory(at: string): Promise<boolean> {
  try {
    await mkdir(at, { mode: 0o755 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Undo the folders a failed write created, deepest first, each through its
 * verified parent and only while it is still the same, empty directory
 * (`rmdir` refuses a non-empty one). The first folder that stays ends the
 * walk: every folder above it holds it. Never throws: the write's own error
 * is the one reported.
 */
async function removeCreated(jail: FsJail, created: readonly CreatedDirectory[], tool: string | undefined): Promise<void> {
  for (const folder of [...created].reverse()) {
    let parent: VerifiedDirectory;
    try {
      parent = await openVerifiedDirectory(jail, path.dirname(folder.real), tool);
    } catch {
      return;
    }
    try {
      const at = `${parent.via}/${path.basename(folder.real)}`;
      const now = await lstat(at);
      if (!now.isDirectory() || now.dev !== folder.dev || now.ino !== folder.ino) return;
      await rmdir(at);
    } catch {
      return;
    } finally {
      await parent.handle.close();
    }
  }
}

async function statEntry(directory: VerifiedDirectory, name: string): Promise<Stats | undefined> {
  try {
    return await lstat(`${directory.via}/${name}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const HASH_CHUNK = 64 * 1024;

/**
 * The sha256 of the current file, read through a verified descriptor in
 * bounded chunks: a file over `maxBytes` (by its size, or by what it yields
 * when it grows while being read) is refused as `too_large`, never buffered.
 */
async function hashEntry(jail: FsJail, directory: VerifiedDirectory, name: string, maxBytes: number, tool: string | undefined): Promise<string> {
  const handle = await openInDirectory(jail, directory, name, constants.O_RDONLY | constants.O_NONBLOCK, tool);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw hostDenial(tool, 'not_a_file');
    if (stat.size > maxBytes) throw hostDenial(tool, 'too_large');
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(Math.min(HASH_CHUNK, maxBytes + 1));
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.byteLength, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw hostDenial(tool, 'too_large');
      hash.update(chunk.subarray(0, bytesRead));
    }
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

/** At most this many bytes of the target's name go into its temporary file's name, which adds 31: well under the 255 a name may take. */
const TEMPORARY_NAME_BYTES = 100;

/**
 * The temporary file's name: a dot, the first whole characters of the
 * target's name that fit `TEMPORARY_NAME_BYTES` of UTF-8, a random part.
 * Counted in bytes and whole characters, never UTF-16 units: the first 100
 * units of a name cut an emoji in half (the kernel got U+FFFD for the lone
 * half, the descriptor's path read back differed, and the write was refused
 * as a link, its temporary file left behind), and 85 three-byte characters
 * made a name past 255 bytes (`ENAMETOOLONG`): legal names could not be
 * written.
 */
export function temporaryNameFor(name: string): string {
  let bytes = 0;
  let end = 0;
  for (const character of name) {
    bytes += Buffer.byteLength(character, 'utf8');
    if (bytes > TEMPORARY_NAME_BYTES) break;
    end += character.length;
  }
  return `.${name.slice(0, end)}.${randomBytes(8).toString('hex')}.toolgate-tmp`;
}

async function replaceEntry(jail: FsJail, directory: VerifiedDirectory, name: string, data: Buffer, mode: number, tool: string | undefined): Promise<void> {
  const temporary = temporaryNameFor(name);
  let created = false;
  try {
    const handle = await createInDirectory(jail, directory, temporary, constants.O_WRONLY, tool, mode);
    created = true;
    try {
      await handle.writeFile(data);
      await handle.chmod(mode);
    } finally {
      await handle.close();
    }
    await rename(`${directory.via}/${temporary}`, `${directory.via}/${name}`);
    created = false;
  } finally {
    if (created) await rm(`${directory.via}/${temporary}`, { force: true });
  }
}
