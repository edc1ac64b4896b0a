import { accessSync, constants, lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { climbsOut, isInside } from '../fs/fs-jail.js';
import type { FsScope } from '../node-host-types.js';
import { findProgram } from './find-program.js';
import type { RepositoryCode } from './find-repository-code.js';
import { socketFilterProgram } from './socket-filter.js';
import { spawnBounded } from './spawn-bounded.js';

/**
 * The seccomp program every sandboxed child gets (see `socketFilterProgram`):
 * no Unix socket, so no host service behind one. bwrap reads it from the
 * descriptor `SANDBOX_FILTER_FD` of its own spawn, then closes it, so the
 * command never holds it. `undefined` on an architecture whose system-call
 * table the program does not know: there bwrap runs without it.
 */
export const SANDBOX_FILTER: Uint8Array | undefined = socketFilterProgram(process.arch);
export const SANDBOX_FILTER_FD = 3;

/**
 * Flags every sandboxed child gets, the probe included (so the probe proves
 * what real commands need). `--cap-drop ALL` matters when the host runs as
 * root (containers, CI): bwrap then keeps every capability for the child by
 * default, and a child with `CAP_SYS_ADMIN` can simply `umount` the masks
 * over protected paths. For an unprivileged host it is a no-op.
 */
const BASE_FLAGS: readonly string[] = [
  '--die-with-parent',
  '--new-session',
  '--unshare-all',
  '--clearenv',
  '--cap-drop',
  'ALL',
  ...(SANDBOX_FILTER === undefined ? [] : ['--seccomp', String(SANDBOX_FILTER_FD)]),
];

/** A probe that has not answered by then counts as a sandbox that cannot run here. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * The bwrap binary when it is installed *and* can create its namespaces
 * here (containers often forbid user namespaces) *and* install the filter:
 * probed once by running `true` inside the same flags real commands get.
 */
export async function detectBwrap(directories: readonly string[]): Promise<string | undefined> {
  const bwrap = findProgram('bwrap', directories);
  if (bwrap === undefined) return undefined;
  const probe = await spawnBounded({
    file: bwrap,
    args: [...BASE_FLAGS, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', '/bin/true'],
    cwd: '/',
    env: {},
    fd3: SANDBOX_FILTER,
    timeoutMs: PROBE_TIMEOUT_MS,
    maxOutputBytes: 4096,
    killGraceMs: 1000,
  });
  return probe.exitCode === 0 && probe.spawnError === undefined ? bwrap : undefined;
}

export interface BwrapArgsOptions {
  readonly workspace: string;
  readonly scope: FsScope;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /**
   * Host paths hidden inside the sandbox (the secret store, spills, media,
   * literal protected paths). What each one is, and where it really is, gets
   * decided here, when the command is spawned (see `realTarget`, `maskKind`),
   * never earlier.
   */
  readonly hidden: readonly { readonly path: string }[];
  /** Host directories the child may read (the git diff shim), bound after the masks. */
  readonly readOnly: readonly string[];
  /** In a writing tier, the workspace repository's code the child may not change (`findRepositoryCode`). */
  readonly repository?: RepositoryCode | undefined;
  /**
   * In a writing tier, folders bound onto themselves, writable as before, so no command can move or replace them: the
   * folders holding the links that decide what a protected name is (`keptLinksOf`). A link itself is no mount point,
   * and is put back after the command; the folder it is in, replaced by a link of the command's, would lead it elsewhere.
   */
  readonly pinned?: readonly string[];
  readonly file: string;
  readonly args: readonly string[];
}

/**
 * bwrap arguments: every namespace unshared (no network), every capability
 * dropped, the root read-only, a private /tmp, the workspace bound
 * read-write only in a writing tier, host stores and protected paths masked
 * as what they are now, the repository's hooks and configuration read-only
 * in a writing tier, the environment cleared and rebuilt from `env` alone.
 * Called once per spawn.
 */
export function buildBwrapArgs(options: BwrapArgsOptions): string[] {
  const args: string[] = [...BASE_FLAGS];
  args.push(options.scope === 'full' ? '--bind' : '--ro-bind', '/', '/');
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  const writable = options.scope !== 'read-only';
  // In `full` the root bind already holds the workspace, unless it lies in a folder just replaced (a `mktemp -d`
  // project under /tmp): bound again after it, it is the real one, and every mask below lands on the real one too.
  if (options.scope !== 'full' || inSandboxOwn(options.workspace)) args.push(writable ? '--bind' : '--ro-bind', options.workspace, options.workspace);
  // Each place once: a protected link and the place it leads to, learned, are one mask (bwrap takes 9,000 arguments at most).
  const hidden = [...new Set(options.hidden.map((entry) => realTarget(entry.path)))].map((target) => ({ path: target }));
  const pinned = writable ? (options.pinned ?? []).filter((folder) => folder !== options.workspace) : [];
  const repository = writable && (options.repository !== undefined || pinned.length > 0) ? { folders: [...(options.repository?.folders ?? []), ...pinned], readOnly: options.repository?.readOnly ?? [] } : undefined;
  for (const mount of heldMounts(options.workspace, options.scope, hidden, repository)) args.push(mount.readOnly ? '--ro-bind' : '--bind', mount.path, mount.path);
  for (const { path: target } of hidden) {
    const kind = maskKind(target);
    if (kind === 'directory') args.push('--tmpfs', target);
    else if (kind === 'file') args.push('--ro-bind', '/dev/null', target);
  }
  for (const directory of options.readOnly) args.push('--ro-bind', directory, directory);
  for (const [name, value] of Object.entries(options.env)) args.push('--setenv', name, value);
  args.push('--chdir', options.cwd, '--', options.file, ...options.args);
  return args;
}

/** Where the sandbox puts folders of its own: a host folder bound there would show the host's. */
const SANDBOX_OWN = ['/tmp', '/dev', '/proc'];

/** Whether `target` is one of the sandbox's own folders or lies inside one. */
function inSandboxOwn(target: string): boolean {
  return SANDBOX_OWN.some((own) => isInside(own, target));
}

/**
 * Every place bound onto itself before the masks, outermost first (a folder
 * bound after one inside it would cover that inner mount point): the
 * repository's held places (`RepositoryCode`), and the folders between the
 * workspace and each held place or masked path that exist now as real
 * folders (a symlink is not followed: bwrap would bind its target). The
 * kernel refuses to rename or remove a mount point, so `mv config c2` cannot
 * carry a masked config/key.json out from under its mask, nor `mv libs l2`
 * a held submodule out of its place. A masked path itself is masked after.
 *
 * A folder is bound read-only when it is a held read-only place or lies in
 * one, writable otherwise in a writing tier. A read-only place inside a
 * read-only one is not bound at all: nothing there can move.
 *
 * In `full` the root is writable too: a command could move a folder above a
 * mask outside the workspace aside (`mv ~/.config elsewhere`), and the next
 * command, finding nothing at the masked path, would run with the moved
 * content unmasked, or create the path afresh (the user's remembered rules).
 * There the folders from the root down to each mask are listed as well, the
 * workspace and those above it among them (`mv` of the workspace carried
 * every mask in it away, its configuration's among them, and the next start
 * read one the command laid out in its place), except those below a folder
 * the sandbox replaces with its own. Outside `full`, a held place outside
 * the workspace is read-only already, and is not bound (bound writable, it
 * would become writable).
 */
function heldMounts(workspace: string, scope: FsScope, hidden: readonly { readonly path: string }[], repository: RepositoryCode | undefined): { readonly path: string; readonly readOnly: boolean }[] {
  const held = new Map<string, boolean>();
  const reachable = (target: string): boolean => isInside(workspace, target) || (scope === 'full' && !inSandboxOwn(target));
  for (const folder of repository?.folders ?? []) if (reachable(folder)) held.set(folder, false);
  for (const target of repository?.readOnly ?? []) if (reachable(target)) held.set(target, true);
  const places = new Set(held.keys());
  for (const target of [...hidden.map((entry) => entry.path), ...held.keys()]) for (const folder of foldersAbove(workspace, scope, target)) places.add(folder);
  /** The innermost held place around `place`, itself excluded. */
  const around = (place: string): string | undefined => {
    let inner: string | undefined;
    for (const candidate of held.keys()) if (candidate !== place && isInside(candidate, place) && (inner === undefined || candidate.length > inner.length)) inner = candidate;
    return inner;
  };
  const mounts: { readonly path: string; readonly readOnly: boolean }[] = [];
  for (const place of places) {
    const outer = around(place);
    const readOnlyAround = outer === undefined ? scope === 'read-only' : held.get(outer) === true;
    const readOnly = held.get(place) ?? readOnlyAround;
    // Inside a read-only place nothing can be moved or written: a mount there would only cost bwrap time.
    if (outer !== undefined && readOnlyAround && readOnly) continue;
    mounts.push({ path: place, readOnly });
  }
  const depth = (place: string): number => place.split(path.sep).length;
  return mounts.sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : 1));
}

/** The folders above `target`, from the workspace (or, in `full`, the root) down, that exist now as real folders. */
function foldersAbove(workspace: string, scope: FsScope, target: string): string[] {
  const inside = path.relative(workspace, target);
  // In `full`, for a mask in the workspace too: `mv` of the workspace, or of a folder above it, carried its masks away.
  const fromRoot = scope === 'full' && !inSandboxOwn(target);
  if (!fromRoot && (inside === '' || climbsOut(inside))) return [];
  const start = fromRoot ? path.parse(target).root : workspace;
  const folders: string[] = [];
  let folder = start;
  for (const name of path.relative(start, target).split(path.sep).slice(0, -1)) {
    folder = path.join(folder, name);
    if (!isRealFolder(folder)) break;
    folders.push(folder);
  }
  return folders;
}

/** Whether `folder` is a folder now and not a link; one this user may not look into (another user's `/root/.config`) is not. */
function isRealFolder(folder: string): boolean {
  try {
    return lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/**
 * Where the mask of `target` must land: its real path. bwrap resolves a mount's
 * place inside the sandbox, where /tmp is the sandbox's own, so a spelling
 * through a link under the host's /tmp leads elsewhere there: a home reached
 * through `/tmp/home -> workspace` would have its stores masked in the
 * sandbox's /tmp and left in sight in the workspace, and a `~/.ssh` linked
 * into /tmp would leave bwrap no place to mount (every command would fail).
 * A path that cannot be resolved stays as spelled, for `maskKind` to judge.
 */
function realTarget(target: string): string {
  try {
    return realpathSync.native(target);
  } catch {
    return target;
  }
}

/**
 * How to mask `target` right now: a directory under an empty tmpfs, anything
 * else under `/dev/null`, and nothing at all when nothing is there.
 *
 * Decided at each spawn because the kind can change while the host lives: a
 * protected `secrets` missing at start-up and later created as a folder must
 * not stay masked as a file (bwrap would refuse to start, and every sandboxed
 * command would fail).
 *
 * A path that does not exist is not masked, because bwrap would have to
 * create a mount point for it in the real workspace: a stray empty file at
 * every protected path, which then blocks `mkdir` there. Leaving it unmasked
 * hides nothing: there is no content there to read. A command may create it
 * (in a writing tier), but not keep it: in the workspace, what a command
 * made at a protected path is moved aside once it ends (see
 * `createProcessCapability`), and a nested `.git` is held to the code it
 * may hold (`createNestedRepositoryGuard`).
 *
 * A symlink is masked as what it points to, since the mount lands on the
 * target; a dangling one is treated as missing (a mount point for it would
 * be created through the link). A path that cannot be inspected (`EACCES`,
 * `ELOOP`) is masked as a file: either that hides it, or bwrap refuses to
 * start and the command does not run. It fails closed.
 *
 * One exception: a path behind a folder another user owns and does not let
 * this one pass (`/root`'s stores, for a gateway run as a user) is out of the
 * command's reach for good, since the command runs as this user and cannot
 * change that folder's mode. It is not masked: bwrap could not make a mount
 * point there, and every sandboxed command failed to start.
 */
export function maskKind(target: string): 'directory' | 'file' | undefined {
  let entry: Stats;
  try {
    entry = lstatSync(target);
    if (entry.isSymbolicLink()) entry = statSync(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    return code === 'EACCES' && behindOthersFolder(target) ? undefined : 'file';
  }
  return entry.isDirectory() ? 'directory' : 'file';
}

/** Whether the first folder on the way to `target` this process may not pass belongs to another user (who alone may change that). */
function behindOthersFolder(target: string): boolean {
  const folders = path.dirname(target).split('/').map((_, index, names) => names.slice(0, index + 1).join('/') || '/');
  for (const folder of folders) {
    try {
      accessSync(folder, constants.X_OK);
    } catch {
      try {
        return statSync(folder).uid !== process.getuid?.();
      } catch {
        return false;
      }
    }
  }
  return false;
}
