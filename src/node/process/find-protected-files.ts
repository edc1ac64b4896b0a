import { chmodSync, lstatSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FsJail } from '../fs/fs-jail.js';

/** How much of the workspace one spawn may walk to find what to mask. */
export interface MaskWalkLimit {
  /** Directory entries read, at most. Default 200,000. */
  readonly entries?: number;
  /** Milliseconds spent, at most. Default 2,000. */
  readonly milliseconds?: number;
}

export const DEFAULT_MASK_WALK_LIMIT = { entries: 200_000, milliseconds: 2000 } as const;

export type ProtectedFiles =
  | {
      readonly kind: 'found';
      readonly paths: readonly string[];
      readonly entries: number;
      /** Every `.git` in the workspace but its own (a folder, a gitdir file or a link): the nested repositories' places, sorted. */
      readonly repositories: readonly string[];
    }
  /** The workspace is larger than the limit: what it holds was not all seen, so nothing may run unmasked. */
  | { readonly kind: 'over_limit'; readonly bound: 'entries' | 'milliseconds' }
  /** A folder holds a name that is not UTF-8: no path string names it, so it can be neither classified nor masked. */
  | { readonly kind: 'undecodable_name'; readonly folder: string };

/** A walk that saw the whole workspace. */
export type FoundProtectedFiles = Extract<ProtectedFiles, { readonly kind: 'found' }>;

/** What one folder holds, as the walk sorts it: read again only when the folder changed. */
interface FolderListing {
  /** Device, inode and change time (ns) of the folder when it was read. */
  readonly stamp: string;
  /** Whether the listing may stand for the folder while `stamp` holds (see `isSettled`). */
  readonly settled: boolean;
  readonly entries: number;
  /** Whether a name in the folder is not UTF-8 (see `hasUndecodableName`). */
  readonly undecodable: boolean;
  /** Protected entries, masked whole; `protectedFiles` are those of them that are files. */
  readonly found: readonly string[];
  readonly protectedFiles: readonly string[];
  readonly folders: readonly string[];
  readonly ordinaryFiles: readonly string[];
  readonly links: readonly string[];
  /** Its `.git` entry, when it has one. */
  readonly repository: string | undefined;
  /** Protected folders in it, masked whole: walked all the same, for the repositories in them alone. */
  readonly maskedFolders: readonly string[];
  /** Whether it lies in a protected folder: read for its folders and repository alone. */
  readonly masked: boolean;
}

/**
 * How long after a folder last changed its listing is trusted for as long
 * as its change time holds. A filesystem keeps coarse timestamps (a few ms;
 * FAT and HFS+ one or two seconds): an entry made within the same tick as
 * the read leaves the time unchanged, so a listing read that soon is read
 * again next time.
 */
const SETTLE_MS = 2000;

/**
 * Every place in the workspace a sandboxed command must see empty: each
 * entry whose path the jail classifies as protected (the same classifier
 * every file tool answers to — `.env*`, key files, `protectedPaths`, the
 * embedder's own state), each ordinary file that is a hard link to one of
 * those files, and where each symlink in the workspace leads when that is a
 * protected place outside it. A folder outside that a symlink leads to is
 * walked as well, within the same bounds (a link to `/` puts the workspace
 * over them). A protected folder is listed whole and not entered. A protected file `isReadable` names is left visible (see
 * `masksWhole`).
 *
 * Repository internals are the exception: a `.git` folder or gitdir file (or
 * a `.git` link to a folder named `.git`) is neither listed nor entered, because git needs to read them to work. What
 * they hold (the remote URLs in `.git/config` among it) stays readable to a
 * command. Each one in the workspace but its own is named in `repositories`:
 * the nested repositories whose code `createNestedRepositoryGuard` checks.
 *
 * Run at each spawn, so a secret created a moment ago is found. Each folder
 * costs an `lstat`; it is read (`readdir` with file types) and its entries
 * classified only when its device, inode or change time changed since the
 * last walk: an entry added, removed or renamed in it changes that time, and
 * unlike the modification time no command can set it back (`touch -d` on
 * the folder changes it too). Symlinks are followed again each time (their targets change
 * without their folder changing), and the hard-link pass `lstat`s every
 * ordinary file, when a protected file has more than one link. Bounded by
 * `limit`: past it the answer is `over_limit`, never a partial list. A
 * folder holding a name that is not UTF-8 is `undecodable_name`.
 */
export function createProtectedFileFinder(jail: FsJail, isReadable: (absolute: string) => boolean = () => false): (limit?: MaskWalkLimit) => ProtectedFiles {
  let listings = new Map<string, FolderListing>();
  return (limit = {}) => {
    const maxEntries = limit.entries ?? DEFAULT_MASK_WALK_LIMIT.entries;
    const deadline = performance.now() + (limit.milliseconds ?? DEFAULT_MASK_WALK_LIMIT.milliseconds);
    const seen = new Map<string, FolderListing>();
    const found: string[] = [];
    const protectedFiles: string[] = [];
    const repositories: string[] = [];
    const folders = [jail.workspace];
    // A command can make a repository in a protected folder it made, which is masked only from the next spawn on.
    const maskedFolders: string[] = [];
    let entries = 0;
    for (;;) {
      const masked = folders.length === 0;
      const folder = masked ? maskedFolders.pop() : folders.pop();
      if (folder === undefined) break;
      // An outside folder two links lead to, or a loop of links, is walked once.
      if (seen.has(folder)) continue;
      if (performance.now() >= deadline) return { kind: 'over_limit', bound: 'milliseconds' };
      const listing = listFolder(jail, isReadable, folder, listings.get(folder), masked);
      if (listing === undefined) continue;
      seen.set(folder, listing);
      if (listing.undecodable) return { kind: 'undecodable_name', folder };
      entries += listing.entries;
      if (entries > maxEntries) return { kind: 'over_limit', bound: 'entries' };
      found.push(...listing.found);
      protectedFiles.push(...listing.protectedFiles);
      (masked ? maskedFolders : folders).push(...listing.folders);
      maskedFolders.push(...listing.maskedFolders);
      // Only the workspace's: a command writes nowhere else, and the workspace's own is held in place (`findRepositoryCode`).
      if (listing.repository !== undefined && folder !== jail.workspace && isInside(jail.workspace, folder)) repositories.push(listing.repository);
      for (const link of listing.links) {
        const target = outsideTarget(jail, link);
        if (target?.kind === 'protected') found.push(target.path);
        else if (target?.kind === 'folder') folders.push(target.path);
      }
    }
    // Only the folders there now are kept: a removed tree does not stay in memory.
    listings = seen;
    const linked = hardLinksOf(protectedFiles, seen.values(), deadline);
    if (linked === undefined) return { kind: 'over_limit', bound: 'milliseconds' };
    return { kind: 'found', paths: [...new Set([...found, ...linked])], entries, repositories: repositories.sort() };
  };
}

/**
 * A folder's listing: the cached one while the folder is unchanged and was
 * settled when read, else read now. Undefined when it is gone or no longer a
 * folder. A folder `masked` (in a protected folder) is read for its folders,
 * its links and its `.git` alone: what else it holds is masked with it.
 */
function listFolder(jail: FsJail, isReadable: (absolute: string) => boolean, folder: string, cached: FolderListing | undefined, masked: boolean): FolderListing | undefined {
  const stats = lstatSync(folder, { bigint: true, throwIfNoEntry: false });
  if (stats === undefined || !stats.isDirectory()) return undefined;
  const stamp = `${stats.dev}:${stats.ino}:${stats.ctimeNs}`;
  if (cached !== undefined && cached.settled && cached.stamp === stamp && cached.masked === masked) return cached;
  const dirents = readFolder(folder, folder === jail.workspace || isInside(jail.workspace, folder));
  if (dirents === 'unreadable') return unreadableListing(stamp, folder, masked);
  const undecodable = dirents.some((entry) => entry.name.includes('\uFFFD')) && hasUndecodableName(folder);
  const listing = {
    stamp,
    settled: Date.now() - Number(stats.ctimeMs) >= SETTLE_MS,
    entries: 0,
    undecodable,
    found: [] as string[],
    protectedFiles: [] as string[],
    folders: [] as string[],
    ordinaryFiles: [] as string[],
    links: [] as string[],
    repository: undefined as string | undefined,
    maskedFolders: [] as string[],
    masked,
  };
  for (const entry of dirents) {
    listing.entries += 1;
    const absolute = `${folder}${path.sep}${entry.name}`;
    if (entry.name === '.git') {
      listing.repository = absolute;
      // A `.git` that is a link is judged by where it leads (see `outsideTarget`), never masked as itself.
      if (entry.isSymbolicLink() && !masked) listing.links.push(absolute);
      continue;
    }
    if (masked) {
      if (entry.isDirectory()) listing.folders.push(absolute);
      // A link in a protected folder (`.ssh/id_ed25519` a link to `keys/deploy`) is masked as what it leads to.
      else if (entry.isSymbolicLink()) listing.found.push(absolute);
    } else if (masksWhole(jail, isReadable, absolute, entry)) {
      listing.found.push(absolute);
      if (entry.isFile()) listing.protectedFiles.push(absolute);
      else if (entry.isDirectory()) listing.maskedFolders.push(absolute);
    } else if (entry.isDirectory()) listing.folders.push(absolute);
    else if (entry.isFile()) listing.ordinaryFiles.push(absolute);
    else if (entry.isSymbolicLink()) listing.links.push(absolute);
  }
  return listing;
}

/**
 * Whether an entry is masked as it stands. A file the policy lets be read
 * (`readableProtectedPaths`: a committed `.env.example`) stays visible, so
 * git does not see it emptied and `git commit -a` cannot commit it so; it is
 * still checked as an ordinary file, so a hard link to a masked secret under
 * a readable name is masked all the same. The host's own stores and private
 * paths are never exempt.
 */
export function masksWhole(jail: FsJail, isReadable: (absolute: string) => boolean, absolute: string, entry: Dirent): boolean {
  // A link named as a folder the protected list names files below (`.claude`) leads those names into a folder of
  // open paths: masked as what it leads to, and moved aside when a command made it, as a protected entry is.
  if (entry.isSymbolicLink() && jail.namesProtectedBelow(absolute)) return true;
  const kind = jail.classify(absolute);
  if (kind === 'open') return false;
  return !(kind === 'protected' && entry.isFile() && isReadable(absolute));
}

/**
 * A folder's entries. One that vanished or became a file since its parent
 * was read holds nothing to mask. One the host cannot list is `unreadable`:
 * a child running as the same user owns it, so it could `chmod` it back and
 * read what it holds. In the workspace the owner's read and search
 * permissions are given back first (`givesBack`): a command could take them
 * off a folder to hide a repository it planted there from the walk, which
 * the user's git, running as the same user, would reach once they are back.
 * Anything else is not understood, so the spawn fails rather than run
 * unmasked.
 */
function readFolder(folder: string, givesBack: boolean): Dirent[] | 'unreadable' {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    if (code === 'EACCES' || code === 'EPERM') return givesBack && givesBackRead(folder) ? readFolder(folder, false) : 'unreadable';
    throw error;
  }
}

/** Whether the owner's read and search permissions on `folder` could be given back (only its owner, or root, can). */
function givesBackRead(folder: string): boolean {
  try {
    chmodSync(folder, statSync(folder).mode | 0o500);
    return true;
  } catch {
    return false;
  }
}

/** A folder the walk cannot list, masked whole: what it holds is unknown, so none of it is shown. Read again at each spawn. */
function unreadableListing(stamp: string, folder: string, masked: boolean): FolderListing {
  return { stamp, settled: false, entries: 1, undecodable: false, found: masked ? [] : [folder], protectedFiles: [], folders: [], ordinaryFiles: [], links: [], repository: undefined, maskedFolders: [], masked };
}

/**
 * Whether a folder holds a name that is not valid UTF-8. Node reads such a
 * name with U+FFFD in place of the bad bytes, so the path it builds names
 * nothing (or another entry): `d\xff/.env` would go unmasked. Asked only when
 * a name read holds U+FFFD, which is rare.
 */
function hasUndecodableName(folder: string): boolean {
  let names: Buffer[];
  try {
    names = readdirSync(folder, { encoding: 'buffer' });
  } catch {
    // Gone or changed since it was read: not known to be safe, so this spawn is refused.
    return true;
  }
  return names.some((name) => !Buffer.from(name.toString('utf8'), 'utf8').equals(name));
}

/**
 * Where a symlink leads outside the workspace (inside it, the walk finds the
 * place itself): a protected place, masked whole; or a folder, walked like
 * the workspace, since `grep -R` or `tar -h` read through the link whatever
 * the folder holds (a link to the home folder reaches `.ssh/` in it). A link
 * named `.git` that leads to a folder named `.git` is a repository's
 * internals, left to git.
 */
function outsideTarget(jail: FsJail, link: string): { readonly kind: 'protected' | 'folder'; readonly path: string } | undefined {
  let target: string;
  let stats: Stats;
  try {
    target = realpathSync.native(link);
    stats = statSync(target);
  } catch {
    // Dangling or a loop: nothing is read through it.
    return undefined;
  }
  const inside = target === jail.workspace || isInside(jail.workspace, target);
  if (inside || (path.basename(link) === '.git' && path.basename(target) === '.git')) return undefined;
  if (jail.isProtected(target)) return { kind: 'protected', path: target };
  return stats.isDirectory() ? { kind: 'folder', path: target } : undefined;
}

/**
 * The ordinary files that are the same file as a protected one (same device
 * and inode): a second name a user made, or an archive left. Undefined when
 * the deadline passes.
 */
function hardLinksOf(protectedFiles: readonly string[], listings: Iterable<FolderListing>, deadline: number): string[] | undefined {
  const identities = new Set<string>();
  for (const file of protectedFiles) {
    const stats = lstatSync(file, { throwIfNoEntry: false });
    if (stats !== undefined && stats.nlink > 1) identities.add(`${stats.dev}:${stats.ino}`);
  }
  if (identities.size === 0) return [];
  const linked: string[] = [];
  for (const listing of listings) {
    if (performance.now() >= deadline) return undefined;
    for (const file of listing.ordinaryFiles) {
      const stats = lstatSync(file, { throwIfNoEntry: false });
      if (stats !== undefined && stats.nlink > 1 && identities.has(`${stats.dev}:${stats.ino}`)) linked.push(file);
    }
  }
  return linked;
}

/** Whether `place` lies below `folder`. */
function isInside(folder: string, place: string): boolean {
  return place.startsWith(`${folder}${path.sep}`);
}
