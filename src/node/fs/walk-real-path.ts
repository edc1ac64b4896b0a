import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import path from 'node:path';
import { hostDenial } from '../errors/host-denial.js';
import { isInside } from './fs-jail.js';

/** Linux's own bound on the symlinks one lookup follows (MAXSYMLINKS): more is a loop. */
export const MAX_LINKS = 40;

/** Where a path really leads, found one component at a time. */
export interface RealWalk {
  /** The real path of the deepest existing ancestor: the target itself when it exists. */
  readonly existing: string;
  /** Names below `existing` that do not exist (empty when the target exists). */
  readonly missing: readonly string[];
  /** `existing` joined with `missing`. */
  readonly absolute: string;
  /** `lstat` of `existing`; never a symlink, every link was followed. */
  readonly stats: Stats;
  /** Some component was a symlink. */
  readonly linkTraversal: boolean;
  /** A symlink leads nowhere: its target, or something below it, does not exist (or is a file with names after it). */
  readonly dangling: boolean;
  /**
   * What stands there: the kind, device and inode of the target, or of its
   * deepest existing ancestor followed by the missing names. Another file
   * renamed over it, a folder swapped in, a new file appearing: each changes it.
   */
  readonly identity: string;
}

/**
 * Resolve an absolute lexical path the way the kernel would, but by hand:
 * one `lstat` per component, each symlink read and its target spliced into
 * the names still to walk (`..` after a link climbs from where the link
 * really led). So the caller learns not only the real path but whether a
 * link was crossed and whether one dangles, which `realpath` cannot say.
 * A path inside the workspace is walked from the workspace's own real path
 * (captured once by the jail), so only the components below it cost a call.
 *
 * Synchronous on purpose: a thread-pool round trip per component costs more
 * than the `lstat` itself. More than `MAX_LINKS` links is refused as a loop.
 */
export function walkRealPath(workspace: string, lexical: string, tool: string | undefined): RealWalk {
  const inside = isInside(workspace, lexical);
  let current = inside ? workspace : path.parse(lexical).root;
  // Names still to walk, the next one last. The bottom `own` of them are the path's own; any above came from a link.
  const pending = lexical.slice(current.length).split(path.sep).reverse();
  let own = pending.length;
  let stats: Stats | undefined;
  let links = 0;
  while (pending.length > 0) {
    const fromLink = pending.length > own;
    const name = pending.pop() as string;
    if (!fromLink) own -= 1;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      // `current` is real, so its parent is too.
      current = path.dirname(current);
      stats = undefined;
      continue;
    }
    const next = current.endsWith(path.sep) ? current + name : current + path.sep + name;
    const found = lstatOrMissing(next);
    if (found === undefined) return missingBelow(current, stats, [name, ...pending.reverse()], fromLink, links > 0);
    if (found.isSymbolicLink()) {
      links += 1;
      if (links > MAX_LINKS) throw hostDenial(tool, 'symlink_refused');
      const target = readlinkSync(next);
      if (path.isAbsolute(target)) {
        current = path.parse(target).root;
        stats = undefined;
      }
      pending.push(...target.split(path.sep).reverse());
      continue;
    }
    current = next;
    stats = found;
    // A file with names after it: nothing exists below it. Names a link put there make the link a dead end.
    if (!found.isDirectory() && pending.length > 0) return missingBelow(current, stats, pending.reverse(), pending.length > own, links > 0);
  }
  const target = stats ?? lstatSync(current);
  return { existing: current, missing: [], absolute: current, stats: target, linkTraversal: links > 0, dangling: false, identity: identityOf(target) };
}

/**
 * The walk of a path that crossed no link, as `walkRealPath` recorded it
 * (`identity`, `created`), confirmed with one `lstat` of the target, or for
 * a new file one of its deepest existing folder and one of the first name
 * below it, instead of one per component. With no link crossed the real path
 * is the lexical one, so what stands there now is what was recorded exactly
 * when the target (or that folder) has the recorded kind, device and inode
 * and the first missing name is still missing: a component swapped for a
 * link or replaced since would have led the kernel to another inode. The
 * `lstat` follows a parent link if one was swapped in, so only an open that
 * verifies the descriptor's path may rely on this. Undefined when anything
 * differs: the caller walks again and sees how.
 */
export function confirmUnlinkedWalk(lexical: string, identity: string, created: boolean): RealWalk | undefined {
  if (!created) {
    const stats = lstatOrMissing(lexical);
    if (stats === undefined || identityOf(stats) !== identity) return undefined;
    return { existing: lexical, missing: [], absolute: lexical, stats, linkTraversal: false, dangling: false, identity };
  }
  // A new file's identity is its deepest existing folder's, then the missing names (see `missingBelow`).
  const slash = identity.indexOf('/');
  if (slash === -1) return undefined;
  const missing = identity.slice(slash + 1).split('/');
  let existing = lexical;
  for (let index = missing.length - 1; index >= 0; index -= 1) {
    if (path.basename(existing) !== missing[index]) return undefined;
    existing = path.dirname(existing);
  }
  const stats = lstatOrMissing(existing);
  const first = missing[0] as string;
  if (stats === undefined || identityOf(stats) !== identity.slice(0, slash) || lstatOrMissing(joinNames(existing, [first])) !== undefined) return undefined;
  return { existing, missing, absolute: lexical, stats, linkTraversal: false, dangling: false, identity };
}

/** The identity of what a `Stats` describes (see `RealWalk.identity`). */
export function identityOf(stats: Stats): string {
  const kind = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'other';
  return `${kind}:${stats.dev}:${stats.ino}`;
}

function missingBelow(existing: string, known: Stats | undefined, names: readonly string[], dangling: boolean, linkTraversal: boolean): RealWalk {
  const stats = known ?? lstatSync(existing);
  const missing = names.filter((name) => name !== '' && name !== '.');
  // Only a `..` among them needs the normalisation of `path.join`; plain names are appended.
  const climbs = missing.includes('..');
  return {
    existing,
    missing,
    absolute: climbs ? path.join(existing, ...missing) : joinNames(existing, missing),
    stats,
    linkTraversal,
    // A `..` among names that do not exist can only come from a link, which then leads nowhere real.
    dangling: dangling || climbs,
    identity: `${identityOf(stats)}/${missing.join('/')}`,
  };
}

/** A real folder and names below it that are neither empty, `.` nor `..`: their path, with no normalisation to pay for. */
function joinNames(folder: string, names: readonly string[]): string {
  if (names.length === 0) return folder;
  return (folder.endsWith(path.sep) ? folder : folder + path.sep) + names.join(path.sep);
}

function lstatOrMissing(candidate: string): Stats | undefined {
  try {
    return lstatSync(candidate, { throwIfNoEntry: false });
  } catch (error) {
    // A component turned into a file since it was walked: below it, nothing exists.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}
