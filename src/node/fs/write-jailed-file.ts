import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { FileWrite } from '../../core/index.js';
import { hostDenial, hostFailure } from '../errors/host-denial.js';
import type { FsJail } from './fs-jail.js';
import { openInDirectory, openVerifiedDirectory, type VerifiedDirectory } from './open-verified.js';
import { resolveJailedPath } from './resolve-jailed-path.js';

export interface WriteJailedFileOptions {
  readonly jail: FsJail;
  readonly path: string;
  readonly content: string;
  readonly maxBytes: number;
  /** Write only when the current content hashes to this (absent file ⇒ mismatch). */
  readonly expectedSha256?: string | undefined;
  readonly tool?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

const STALE = 'the file changed since it was read (its sha256 differs); read it again before writing';

/**
 * Write a jailed file atomically: missing parent directories are created one
 * verified component at a time; the bytes go to a temp file opened
 * `O_CREAT | O_EXCL | O_NOFOLLOW` in the target directory, then renamed over
 * the target. A symlink or a hard-linked target is refused; any failure
 * removes the temp file and leaves the old content intact.
 */
export async function writeJailedFile(options: WriteJailedFileOptions): Promise<FileWrite> {
  const { jail, tool } = options;
  if (jail.scope === 'read-only') throw hostDenial(tool, 'scope_denied');
  const data = Buffer.from(options.content, 'utf8');
  if (data.byteLength > options.maxBytes) throw hostDenial(tool, 'too_large');
  options.signal?.throwIfAborted();
  const target = await resolveJailedPath(jail, options.path, tool);
  const name = target.missing.length > 0 ? (target.missing.at(-1) ?? '') : path.basename(target.absolute);
  const directory = await openParent(jail, target.existing, target.missing, target.absolute, tool);
  try {
    const existing = await statEntry(directory, name);
    if (existing?.isSymbolicLink() === true) throw hostDenial(tool, 'symlink_refused');
    if (existing !== undefined && !existing.isFile()) throw hostDenial(tool, 'not_a_file');
    if (existing !== undefined && existing.nlink > 1) throw hostDenial(tool, 'hardlink_refused');
    if (options.expectedSha256 !== undefined) {
      if (existing === undefined) throw hostFailure(tool, STALE);
      if ((await hashEntry(jail, directory, name, tool)) !== options.expectedSha256.toLowerCase()) throw hostFailure(tool, STALE);
    }
    options.signal?.throwIfAborted();
    await replaceEntry(jail, directory, name, data, existing === undefined ? 0o644 : existing.mode & 0o7777, tool);
    return { bytes: data.byteLength, sha256: createHash('sha256').update(data).digest('hex'), created: existing === undefined };
  } finally {
    await directory.handle.close();
  }
}

/** The directory that will hold the file: the existing ancestor, then each missing component created and verified. */
async function openParent(jail: FsJail, existing: string, missing: readonly string[], absolute: string, tool: string | undefined): Promise<VerifiedDirectory> {
  if (missing.length === 0) return openVerifiedDirectory(jail, path.dirname(absolute), tool);
  let directory = await openVerifiedDirectory(jail, existing, tool);
  for (const component of missing.slice(0, -1)) {
    try {
      await mkdir(`${directory.via}/${component}`, { mode: 0o755 });
      const next = await openVerifiedDirectory(jail, path.join(directory.real, component), tool);
      await directory.handle.close();
      directory = next;
    } catch (error) {
      await directory.handle.close();
      throw error;
    }
  }
  return directory;
}

async function statEntry(directory: VerifiedDirectory, name: string): Promise<Stats | undefined> {
  try {
    return await lstat(`${directory.via}/${name}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function hashEntry(jail: FsJail, directory: VerifiedDirectory, name: string, tool: string | undefined): Promise<string> {
  const handle = await openInDirectory(jail, directory, name, constants.O_RDONLY | constants.O_NONBLOCK, tool);
  try {
    return createHash('sha256').update(await handle.readFile()).digest('hex');
  } finally {
    await handle.close();
  }
}

async function replaceEntry(jail: FsJail, directory: VerifiedDirectory, name: string, data: Buffer, mode: number, tool: string | undefined): Promise<void> {
  const temporary = `.${name.slice(0, 100)}.${randomBytes(8).toString('hex')}.toolgate-tmp`;
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;
  let created = false;
  try {
    const handle = await openInDirectory(jail, directory, temporary, flags, tool, mode);
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
