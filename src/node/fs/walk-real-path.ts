import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import path from 'node:path';
import { hostDenial } from '../errors/host-denial.js';
import { isInside } from './fs-jail.js';

/** Linux's own bound on the symlinks one lookup follows (MAXSYMLINKS): more is a loop. */
export const MAX_LINKS = 40;

/**
 * What the walks of one call may still hand to `lstat`, in characters. The
 * kernel reads each path from its root again, so a walk costs the square of
 * its depth: fifteen arguments 1,990 folders deep, within PATH_MAX, held the
 * gateway's thread for 4–5 s. Past it the path is refused (`invalid_path`).
 */
export interface WalkBudget {
  characters: number;
}

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
 * than the `lstat` itself. More than `MAX_LINKS` links is refused as a loop,
 * and a walk past its `budget` as an invalid path.
 */
export function walkRealPath(workspace: string, lexical: string, tool: string | undefined, budget?: WalkBudget): RealWalk {
  const inside = isInside(workspace, lexical);
  let current = inside ? workspace : path.parse(lexical).root;
  // Names a link put there still to walk, the next one last; the path's own names are read from `lexical` at `cursor`, no array built.
  const linked: string[] = [];
  let cursor = current.length;
  let stats: Stats | undefined;
  let links = 0;
  while (linked.length > 0 || cursor <= lexical.length) {
    const fromLink = linked.length > 0;
    let name: string;
    if (fromLink) name = linked.pop() as string;
    else {
      const end = lexical.indexOf(path.sep, cursor);
      name = lexical.slice(cursor, end === -1 ? lexical.length : end);
      cursor = end === -1 ? lexical.length + 1 : end + 1;
    }
    if (name === '' || name === '.') continue;
    if (name === '..') {
      // `current` is real, so its parent is too.
      current = path.dirname(current);
      stats = undefined;
      continue;
    }
    const next = current.endsWith(path.sep) ? current + name : current + path.sep + name;
    if (budget !== undefined && (budget.characters -= next.length) < 0) throw hostDenial(tool, 'invalid_path');
    const found = lstatOrMissing(next);
    if (found === undefined) return missingBelow(current, stats, [name, ...namesLeft(linked, lexical, cursor)], fromLink, links > 0);
    if (found.isSymbolicLink()) {
      links += 1;
      if (links > MAX_LINKS) throw hostDenial(tool, 'symlink_refused');
      const target = readlinkSync(next);
      if (path.isAbsolute(target)) {
        current = path.parse(target).root;
        stats = undefined;
      }
      linked.push(...target.split(path.sep).reverse());
      continue;
    }
    current = next;
    stats = found;
    // A file with names after it: nothing exists below it. Names a link put there make the link a dead end.
    if (!found.isDirectory() && (linked.length > 0 || cursor <= lexical.length)) return missingBelow(current, stats, namesLeft(linked, lexical, cursor), linked.length > 0, links > 0);
  }
  const target = stats ?? lstatSync(current);
  return { existing: current, missing: [], absolute: current, stats: target, linkTraversal: links > 0, dangling: false, identity: identityOf(target) };
}

/** The names a walk has not reached, in order: those a link put there first, then the rest of the path's own. */
function namesLeft(linked: readonly string[], lexical: string, cursor: number): string[] {
  const own = cursor <= lexical.length ? lexical.slice(cursor).split(path.sep) : [];
  return [...[...linked].reverse(), ...own];
}

/** A walk as far as it can be known without the `Stats` of what it found. */
export type UnlinkedWalk = Omit<RealWalk, 'stats'>;

/**
 * The walk of a path that crossed no link, as `walkRealPath` recorded it
 * (`identity`, `created`), rebuilt without a look at the disk: with no link
 * crossed the real path is the lexical one, and a new file's identity names
 * its deepest existing folder, then the names missing below it (see
 * `missingBelow`). Nothing here is confirmed: only an open that verifies
 * the descriptor's path and identity may rely on it. Undefined when the
 * record does not fit this path: the caller walks again and sees how.
 */
export function recordedUnlinkedWalk(lexical: string, identity: string, created: boolean): UnlinkedWalk | undefined {
  if (!created) return { existing: lexical, missing: [], absolute: lexical, linkTraversal: false, dangling: false, identity };
  const slash = identity.indexOf('/');
  if (slash === -1) return undefined;
  const missing = identity.slice(slash + 1).split('/');
  let existing = lexical;
  for (let index = missing.length - 1; index >= 0; index -= 1) {
    if (path.basename(existing) !== missing[index]) return undefined;
    existing = path.dirname(existing);
  }
  return { existing, missing, absolute: lexical, linkTraversal: false, dangling: false, identity };
}

/**
 * Which file, and its size, modification and change times (see `ResolvedPath.contentStamp`). The device and
 * inode are part of it: two files written in one tick of the clock have the same size and times, and renaming
 * the folder of one into the other's place moves neither, so the times alone would stand the second in for the first.
 */
export function contentStampOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
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

const NO_THROW = { throwIfNoEntry: false } as const;

function lstatOrMissing(candidate: string): Stats | undefined {
  try {
    return lstatSync(candidate, NO_THROW);
  } catch (error) {
    // A component turned into a file since it was walked: below it, nothing exists.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}
