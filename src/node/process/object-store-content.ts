import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import path from 'node:path';
import type { ObjectStoreContent } from '../../core/internal.js';
import { withGitConfig } from './build-child-env.js';
import { findRepository, repositoryStamp, type RepositoryPlaces } from './object-store-stamp.js';
import { SYSTEM_PATH } from './system-path.js';

/** How long each git may take, on the gateway's thread; past it, the store is judged as holding a protected file. */
const GIT_TIMEOUT_MS = 2000;
/** The most a listing of reachable objects may print (about 300,000 objects with their paths). */
const MAX_LISTING_BYTES = 32 * 1024 * 1024;
/** Repositories whose answer is kept, with the stamp it was read at. */
const MAX_KEPT = 16;

/** What the host learns of one repository's store, kept until its stamp changes. */
interface StoreListing {
  readonly protectedNames: boolean;
  /** The ids of the objects nothing reaches, sorted. */
  readonly unreachable: readonly string[];
}

/** What a store that could not be read is judged to hold: everything. */
const UNKNOWN = 'unknown';
const NOTHING: StoreListing = Object.freeze({ protectedNames: false, unreachable: [] });

/**
 * Pseudo-refs a command names as it names a branch (`git show ORIG_HEAD`),
 * which `--all` leaves out: what they reach is read too.
 */
const PSEUDO_REFS = ['ORIG_HEAD', 'MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'REBASE_HEAD', 'BISECT_HEAD', 'AUTO_MERGE', 'FETCH_HEAD'];

/**
 * git with no configuration but the repository's, and nothing of it that
 * could run a program on the gateway's thread: the listing reads the
 * index, where an fsmonitor would otherwise be asked.
 */
function gitEnv(): Record<string, string> {
  const env = { PATH: SYSTEM_PATH.join(':'), HOME: homedir(), LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  return withGitConfig(env, [['safe.directory', '*'], ['core.fsmonitor', 'false'], ['core.hooksPath', '/dev/null']]);
}

/**
 * The host's answer to what a git command's repository holds
 * (`ObjectStoreContent`), for the folder git finds it from and the object
 * ids the command names. The sandbox masks a protected file of the work
 * tree, not its blob: a `.env` committed, staged, stashed or once added is
 * printed by `log -p`, `diff`, `cat-file`. Two git processes read it, each
 * bounded, on the gateway's thread: the objects every ref, reflog entry,
 * pseudo-ref and index reaches, with the paths the trees give them, and
 * every object the store holds (its alternates' included); those nothing
 * reaches are kept by id. The answer is kept per repository with a stamp of
 * the files git reads (`repositoryStamp`), so a repository nobody changed
 * costs a few hundred `lstat` calls, not a walk of its history. A git that
 * fails, times out or says too much leaves the store unknown: judged as
 * holding a protected file, and kept as any answer is, until the stamp changes.
 */
export function createObjectStoreReader(isProtected: (absolute: string) => boolean): (folder: string, ids: readonly string[]) => ObjectStoreContent {
  const kept = new Map<string, { readonly stamp: string; readonly listing: StoreListing | typeof UNKNOWN }>();
  const listingOf = (folder: string): StoreListing | typeof UNKNOWN => {
    let places: RepositoryPlaces | undefined;
    let stamp: string | undefined;
    try {
      places = findRepository(folder);
      // Taken before git reads: a change while it reads makes the next stamp differ, and the store is read again.
      stamp = places === undefined ? undefined : repositoryStamp(places);
    } catch {
      return UNKNOWN;
    }
    if (places === undefined) return NOTHING;
    const key = `${places.gitDir}\0${places.commonDir}`;
    const known = kept.get(key);
    if (stamp !== undefined && known?.stamp === stamp) return known.listing;
    const listing = readListing(places, isProtected);
    // An unknown store is kept too: a history too long to list in time would otherwise hold every command 2 s.
    if (stamp !== undefined) {
      kept.delete(key);
      if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
      kept.set(key, { stamp, listing });
    }
    return listing;
  };
  return (folder, ids) => {
    const listing = listingOf(folder);
    if (listing === UNKNOWN) return { protectedNames: true, unreachable: true, namesUnreachable: true };
    return { protectedNames: listing.protectedNames, unreachable: listing.unreachable.length > 0, namesUnreachable: ids.some((id) => startsOne(listing.unreachable, id)) };
  };
}

/** Whether a sorted list holds an id that starts with `prefix` (git reads an abbreviation as any such object). */
function startsOne(sorted: readonly string[], prefix: string): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < prefix) low = middle + 1;
    else high = middle;
  }
  return sorted[low]?.startsWith(prefix) === true;
}

function readListing(places: RepositoryPlaces, isProtected: (absolute: string) => boolean): StoreListing | typeof UNKNOWN {
  const git = (args: readonly string[]): string =>
    execFileSync('git', ['--git-dir', places.gitDir, ...args], { cwd: places.top, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_LISTING_BYTES, env: gitEnv() });
  let listing: string;
  let stored: string;
  try {
    listing = git(['rev-list', '--objects', '--all', '--reflog', '--indexed-objects', '--ignore-missing', ...PSEUDO_REFS, '--']);
    stored = git(['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']);
  } catch {
    return UNKNOWN;
  }
  const reachable = new Set<string>();
  let protectedNames = false;
  // Each version of a file is an object of its own under the same path: each path is classified once.
  const seen = new Set<string>();
  for (const line of listing.split('\n')) {
    if (line === '') continue;
    const space = line.indexOf(' ');
    const id = space === -1 ? line : line.slice(0, space);
    // A line that is no object id then a path (a path holding a line break) leaves the store unknown.
    if (!OBJECT_NAME.test(id)) return UNKNOWN;
    reachable.add(id);
    const name = space === -1 ? '' : line.slice(space + 1);
    if (protectedNames || name === '' || seen.has(name)) continue;
    seen.add(name);
    protectedNames = isProtected(path.join(places.top, name));
  }
  const unreachable = stored.split('\n').filter((id) => id !== '' && !reachable.has(id));
  if (!unreachable.every((id) => OBJECT_NAME.test(id))) return UNKNOWN;
  return { protectedNames, unreachable: unreachable.sort() };
}

const OBJECT_NAME = /^[0-9a-f]{40,64}$/;
