import { constants } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import path from 'node:path';
import type { DirectoryEntry, ResolvedPath } from '../../core/internal.js';
import { hostFailure, isPermissionDenied } from '../errors/host-denial.js';
import { climbsOut, type FsJail } from './fs-jail.js';
import { isIgnored, parseGitignore, type IgnoreRule } from './gitignore-rules.js';
import type { MatchBudget } from './wildmatch.js';
import { openInDirectory, openVerifiedDirectory, type VerifiedDirectory } from './open-verified.js';
import { openAsResolved, refuseNonFolder, resolveJailedPath, sameTarget } from './resolve-jailed-path.js';

export interface ListJailedDirectoryOptions {
  readonly jail: FsJail;
  readonly path: string;
  /** 1 lists the directory itself; at most 8. */
  readonly depth?: number | undefined;
  readonly includeHidden?: boolean | undefined;
  /** At most this many entries. */
  readonly maxEntries: number;
  readonly tool?: string | undefined;
  /** The directory as resolved before policy and approval (see `resolveJailedPath`). */
  readonly expected?: ResolvedPath | undefined;
  readonly signal?: AbortSignal | undefined;
}

const MAX_DEPTH = 8;
const MAX_GITIGNORE_BYTES = 256 * 1024;
/**
 * What the `.gitignore` files of one listing may cost: at most this many
 * rules in all, and this many matching steps (about a tenth of a second):
 * the listing runs on the gateway's one thread, and a repository's
 * `.gitignore` files are its author's. Past either, what is left is not
 * ignored (see `MatchBudget`).
 */
const MAX_RULES = 10_000;
const MATCH_STEPS = 10_000_000;

/**
 * List a jailed directory, breadth-first to `depth`, honouring `.gitignore`
 * files on the way (and always skipping `.git`). Symlinks are reported, never
 * followed; each subdirectory is opened through its verified parent.
 * Protected entries are left out, even of a protected directory whose
 * listing was approved: the approval named the directory, not what is in it.
 */
export async function listJailedDirectory(options: ListJailedDirectoryOptions): Promise<DirectoryEntry[]> {
  const { jail, tool } = options;
  const depth = Math.min(Math.max(1, Math.floor(options.depth ?? 1)), MAX_DEPTH);
  const target = resolveJailedPath(jail, options.path, tool, options.expected);
  if (target.missing.length > 0) throw hostFailure(tool, 'the directory does not exist');
  refuseNonFolder(target, tool, 'folder');
  const entries: DirectoryEntry[] = [];
  const budget: MatchBudget = { remaining: MATCH_STEPS };
  const rules: IgnoreRule[] = await openAsResolved(target, tool, () => rootRules(jail, target.absolute, tool, budget));
  const root = await openAsResolved(target, tool, () => openVerifiedDirectory(jail, target.absolute, tool));
  let level: VerifiedDirectory[] = [root];
  try {
    sameTarget(target, await root.handle.stat(), tool);
    for (let current = 1; current <= depth && level.length > 0; current += 1) {
      const next: VerifiedDirectory[] = [];
      for (const directory of level) {
        options.signal?.throwIfAborted();
        const relativeDirectory = toRelative(jail, directory.real);
        addRules(rules, await readGitignore(jail, directory, relativeDirectory, tool, budget));
        const dir = await opendir(directory.via);
        for await (const dirent of dir) {
          if (entries.length >= options.maxEntries) break;
          if (dirent.name === '.git' || (options.includeHidden !== true && dirent.name.startsWith('.'))) continue;
          const relative = relativeDirectory === '' ? dirent.name : `${relativeDirectory}/${dirent.name}`;
          const isDirectory = dirent.isDirectory();
          if (isIgnored(rules, relative, isDirectory)) continue;
          if (jail.isProtected(path.join(directory.real, dirent.name))) continue;
          if (dirent.isFile()) {
            const stat = await lstat(`${directory.via}/${dirent.name}`);
            entries.push({ path: relative, kind: 'file', bytes: stat.size });
          } else {
            entries.push({ path: relative, kind: isDirectory ? 'directory' : dirent.isSymbolicLink() ? 'symlink' : 'other' });
          }
          if (isDirectory && current < depth) next.push(...(await openToDescend(jail, path.join(directory.real, dirent.name), tool)));
        }
      }
      await Promise.all(level.map((directory) => directory.handle.close()));
      level = next;
    }
  } finally {
    await Promise.all(level.map((directory) => directory.handle.close().catch(() => undefined)));
  }
  return entries;
}

/**
 * A subfolder to list in turn, or none when this process may not open it
 * (another user's, mode 0700): it is listed, and what it holds is not, as
 * `ls -R` does. Run as root the gateway opens every folder, and run as a user
 * one such folder failed the whole listing.
 */
async function openToDescend(jail: FsJail, real: string, tool: string | undefined): Promise<VerifiedDirectory[]> {
  try {
    return [await openVerifiedDirectory(jail, real, tool)];
  } catch (error) {
    if (isPermissionDenied(error)) return [];
    throw error;
  }
}

function toRelative(jail: FsJail, real: string): string {
  return path.relative(jail.workspace, real).split(path.sep).join('/');
}

/** `.gitignore` files of the workspace root down to (not including) the listed directory. */
async function rootRules(jail: FsJail, absolute: string, tool: string | undefined, budget: MatchBudget): Promise<IgnoreRule[]> {
  const relative = path.relative(jail.workspace, absolute);
  if (relative === '' || climbsOut(relative)) return [];
  const rules: IgnoreRule[] = [];
  let current = jail.workspace;
  for (const component of ['', ...relative.split(path.sep).slice(0, -1)]) {
    current = path.join(current, component);
    const directory = await openVerifiedDirectory(jail, current, tool);
    try {
      addRules(rules, await readGitignore(jail, directory, toRelative(jail, current), tool, budget));
    } finally {
      await directory.handle.close();
    }
  }
  return rules;
}

/** `more` after `rules`, up to `MAX_RULES` in all: one at a time, since a spread of a hundred thousand overflows the stack. */
function addRules(rules: IgnoreRule[], more: readonly IgnoreRule[]): void {
  for (const rule of more) {
    if (rules.length >= MAX_RULES) return;
    rules.push(rule);
  }
}

async function readGitignore(jail: FsJail, directory: VerifiedDirectory, relative: string, tool: string | undefined, budget: MatchBudget): Promise<IgnoreRule[]> {
  try {
    const handle = await openInDirectory(jail, directory, '.gitignore', constants.O_RDONLY | constants.O_NONBLOCK, tool);
    try {
      const stat = await handle.stat();
      if (!stat.isFile() || stat.size > MAX_GITIGNORE_BYTES) return [];
      return parseGitignore(await handle.readFile('utf8'), relative, budget);
    } finally {
      await handle.close();
    }
  } catch {
    // No readable .gitignore here (absent, a symlink, unreadable): nothing is ignored by it.
    return [];
  }
}
