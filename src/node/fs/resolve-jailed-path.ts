import type { Stats } from 'node:fs';
import { ToolPolicyError, type ResolvedPath } from '../../core/internal.js';
import { hostDenial } from '../errors/host-denial.js';
import { isInside, isUsablePath, resolveInWorkspace, type FsJail, type PathClass } from './fs-jail.js';
import { verifiesDescriptorPath } from './open-verified.js';
import { contentStampOf, identityOf, recordedUnlinkedWalk, walkRealPath, type UnlinkedWalk } from './walk-real-path.js';

export interface JailedPath {
  /** The real path of the deepest existing ancestor. */
  readonly existing: string;
  /** Components below `existing` that do not exist yet (empty when the target exists). */
  readonly missing: readonly string[];
  /** `existing` joined with `missing`. */
  readonly absolute: string;
  /** What stood there when it was resolved: an open must find the same (`sameTarget`). */
  readonly identity: string;
  /**
   * Bound to a resolution made before policy and approval (`expected` named
   * its identity), and perhaps taken from its record without a look at the
   * disk (`recordedWalk`): the open confirms it, by the descriptor's path and
   * identity (for a new file, its folder's: `sameFolder`). What the open meets
   * instead of that target, a link included, is `target_changed`
   * (`openAsResolved`), and so is a folder that appeared where a new file's
   * folders were missing.
   */
  readonly bound: boolean;
  /**
   * For a bound target that is an existing regular file resolved with its
   * content stamp (a write's target): what the file held when it was judged.
   * An open must find it still so (`sameTarget`): bytes written into it in
   * place since, which keep its inode, are `target_changed` too.
   */
  readonly contentStamp?: string;
}

/**
 * Resolve a model-supplied path inside the jail, at execution. Lexical
 * escapes (`..`, absolute paths outside) are a pure scope denial the model
 * may correct; a symlink leading out (file, directory, chain), dangling or
 * looping, the host's own stores and the embedder's private paths are fatal.
 *
 * `expected` is the target as it was resolved before policy and approval:
 * when this host resolved it, a different real path, existence or identity
 * now is `target_changed` — what runs is what was judged, never a link or a
 * file put there since. A protected real path (or spelling) passes only when
 * `expected` says protected and names this real path: the approver saw it.
 * A target that crossed no link is taken as recorded, with no `lstat` at
 * all, where the open verifies the descriptor's path: that open is the
 * re-check (`bound`). Any other is walked again, one `lstat` per component.
 *
 * Every open re-verifies the descriptor it got, because a parent directory
 * may be swapped between this and the open.
 */
export function resolveJailedPath(jail: FsJail, requested: string, tool: string | undefined, expected?: ResolvedPath): JailedPath {
  if (!isUsablePath(requested)) throw hostDenial(tool, 'invalid_path');
  const lexical = resolveInWorkspace(jail.workspace, requested);
  if (!isInside(jail.root, lexical)) throw hostDenial(tool, 'scope_denied');
  const spelled = jail.classify(lexical);
  refuseReserved(spelled, tool);
  const shown = jail.display(lexical);
  const walk = recordedWalk(lexical, shown, expected) ?? walkRealPath(jail.workspace, lexical, tool);
  const real = walk.absolute === lexical ? shown : jail.display(walk.absolute);
  if (expected?.identity !== undefined && (expected.real !== real || expected.created !== walk.missing.length > 0 || expected.identity !== walk.identity)) {
    throw hostDenial(tool, 'target_changed');
  }
  if (walk.dangling || !isInside(jail.root, walk.absolute)) throw hostDenial(tool, 'symlink_refused');
  const found = walk.absolute === lexical ? spelled : jail.classify(walk.absolute);
  refuseReserved(found, tool);
  if ((spelled !== 'open' || found !== 'open') && !(expected?.protected === true && expected.real === real)) throw hostDenial(tool, 'protected_path');
  const bound = expected?.identity !== undefined;
  const jailed = { existing: walk.existing, missing: walk.missing, absolute: walk.absolute, identity: walk.identity, bound };
  return bound && expected.contentStamp !== undefined ? { ...jailed, contentStamp: expected.contentStamp } : jailed;
}

/**
 * The walk this host recorded for `expected`, as recorded, when it crossed
 * no link and names this very path; else undefined (walk again). With no
 * link crossed the real path is the lexical one, so the open that verifies
 * the descriptor's path and identity sees every change a second walk would:
 * a component swapped for a link leads the descriptor elsewhere, a file
 * renamed over the target or a folder swapped in has another inode.
 */
function recordedWalk(lexical: string, shown: string, expected: ResolvedPath | undefined): UnlinkedWalk | undefined {
  if (!verifiesDescriptorPath || expected?.identity === undefined || expected.linkTraversal || expected.real !== shown) return undefined;
  return recordedUnlinkedWalk(lexical, expected.identity, expected.created);
}

/**
 * Refuse a target that is, or passes through, something other than a
 * folder where a folder is wanted: a listing or a working directory that is
 * a file, a new file's missing names below a file. Said as what it is
 * (`not_a_directory`) before any open: the open of a bound target would
 * meet `ENOTDIR` and report it as `target_changed`, which asks the model to
 * check the path and call again, though nothing changed.
 */
export function refuseNonFolder(target: JailedPath, tool: string | undefined, wanted: 'folder' | 'parent'): void {
  const kind = target.identity.slice(0, target.identity.indexOf(':'));
  const folder = wanted === 'folder' ? target.missing.length === 0 : target.missing.length > 0;
  if (folder && kind !== 'directory') throw hostDenial(tool, 'not_a_directory');
}

/**
 * Whether what an open found (`fstat` of the descriptor, `lstat` of the
 * entry, or nothing) is what was resolved: another file renamed over the
 * target, one created where none was, a folder swapped in are `target_changed`.
 * On every platform, so a swap between resolution and open is caught here
 * even where there is no `/proc/self/fd` to read the descriptor's path from.
 * A target bound with its content stamp must still hold what it held: a
 * file written in place keeps its inode, and an approved write or edit would
 * otherwise land on bytes its card never showed.
 */
export function sameTarget(target: JailedPath, found: Stats | undefined, tool: string | undefined): void {
  const same = target.missing.length === 0 ? found !== undefined && identityOf(found) === target.identity : found === undefined;
  if (!same || (target.contentStamp !== undefined && found !== undefined && contentStampOf(found) !== target.contentStamp)) throw hostDenial(tool, 'target_changed');
}

/** For a new file: whether the folder opened for it (`fstat`) is the deepest existing one it was resolved below. */
export function sameFolder(target: JailedPath, folder: Stats, tool: string | undefined): void {
  if (`${identityOf(folder)}/${target.missing.join('/')}` !== target.identity) throw hostDenial(tool, 'target_changed');
}

/**
 * An open of `target`: for one bound to its resolution, a link met there
 * (`ELOOP`, `symlink_refused`), nothing (`ENOENT`), or a file where a folder
 * was (`ENOTDIR`, `not_a_directory`) is what changed since, `target_changed`.
 */
export async function openAsResolved<T>(target: JailedPath, tool: string | undefined, open: () => Promise<T>): Promise<T> {
  if (!target.bound) return open();
  try {
    return await open();
  } catch (error) {
    throw metAtOpen(error) ? hostDenial(tool, 'target_changed', error) : error;
  }
}

function metAtOpen(error: unknown): boolean {
  if (error instanceof ToolPolicyError) return error.reason === 'symlink_refused' || error.reason === 'not_a_directory';
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ELOOP' || code === 'ENOENT' || code === 'ENOTDIR';
}

/** The host's own stores and the embedder's private paths: refused whatever an approval says. */
export function refuseReserved(verdict: PathClass, tool: string | undefined): void {
  if (verdict === 'secret_store' || verdict === 'protected_path') throw hostDenial(tool, verdict);
}
