import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, lstat, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { spawnBounded, type BoundedResult } from './spawn-bounded.js';

/**
 * The submodule entries (gitlinks, mode 160000) of the workspace's index,
 * as they were before a command, and the stamp of the index file they were
 * read from.
 */
export interface GitlinkSnapshot {
  readonly stamp: string;
  readonly paths: ReadonlySet<string>;
}

export interface GitlinkGuard {
  /** The entries before a command. Undefined when git cannot read the index: the command is then not run. */
  before(): Promise<GitlinkSnapshot | undefined>;
  /**
   * After the command: the entries it added, taken out of the index again.
   * Undefined when git could not read or change the index.
   */
  after(snapshot: GitlinkSnapshot): Promise<readonly string[] | undefined>;
}

export interface GitlinkGuardOptions {
  /** The workspace, whose `.git` folder holds the index. */
  readonly workspace: string;
  /** The host's git. */
  readonly git: string;
  /** A hardened environment for it, with nothing a call declared. */
  readonly env: Readonly<Record<string, string>>;
}

const NO_INDEX = 'none';

/**
 * The user's own git enters the repository each gitlink of the index names:
 * `git status` runs git inside it, with that repository's configuration (its
 * `core.fsmonitor`) and hooks. A command can make such a repository (`git
 * init sub`, a program-naming key in `sub/.git/config`) and list it (its own
 * `git update-index --cacheinfo 160000,…,sub`, or the agent's next `git add
 * sub`), and the next `git status` the user types runs that program, outside
 * toolgate and its sandbox. So every entry a command adds is taken out of
 * the index again once it ends (the nested repository stays, as an untracked
 * folder the user's git does not enter), and the result names it.
 *
 * git reads the index (it may be split, sparse, or of version 4), and only
 * when the index file changed since the last read: most commands never
 * touch it, and cost two `lstat` calls.
 */
export function createGitlinkGuard(options: GitlinkGuardOptions): GitlinkGuard {
  const index = path.join(options.workspace, '.git', 'index');
  let last: GitlinkSnapshot | undefined;
  const spawnOptions = { file: options.git, cwd: options.workspace, env: options.env, timeoutMs: 10_000, maxOutputBytes: 256 * 1024, killGraceMs: 500 };
  const run = (args: readonly string[], maxOutputBytes = spawnOptions.maxOutputBytes): Promise<BoundedResult> => spawnBounded({ ...spawnOptions, args, maxOutputBytes });
  const read = async (): Promise<GitlinkSnapshot | undefined> => {
    // An index the host cannot even look at (a command made `.git` unreadable) is one git cannot list.
    const stamp = await stampOf(index).catch(() => undefined);
    if (stamp === undefined) return undefined;
    if (last !== undefined && last.stamp === stamp) return last;
    if (stamp === NO_INDEX) return (last = { stamp, paths: new Set() });
    const listed = await run(['ls-files', '--stage', '-z', '--full-name'], 128 * 1024 * 1024);
    if (listed.exitCode !== 0 || listed.truncated || listed.spawnError !== undefined) return undefined;
    const paths = new Set<string>();
    for (const entry of listed.stdout.split('\0')) {
      if (!entry.startsWith('160000 ')) continue;
      const relative = entry.slice(entry.indexOf('\t') + 1);
      // A path that is not UTF-8 cannot be named back to git intact.
      if (relative.includes('\uFFFD')) return undefined;
      paths.add(relative);
    }
    // The stamp read before the listing: a change while git read makes the next read list again.
    return (last = { stamp, paths });
  };

  /**
   * git edits a copy of the index, which then replaces it, as git's own
   * lock file does: a command that left an `index.lock` behind (which stops
   * every git that writes the index, and none that reads it) cannot keep its
   * entries in.
   */
  async function removeEntries(entries: readonly string[]): Promise<boolean> {
    const copy = path.join(path.dirname(index), `index.toolgate-${randomUUID()}`);
    try {
      await copyFile(index, copy, constants.COPYFILE_EXCL);
      const removed = await spawnBounded({ ...spawnOptions, args: ['update-index', '--force-remove', '--', ...entries], env: { ...options.env, GIT_INDEX_FILE: copy } });
      if (removed.exitCode !== 0 || removed.spawnError !== undefined) return false;
      await rename(copy, index);
      return true;
    } catch {
      return false;
    } finally {
      await rm(copy, { force: true });
    }
  }

  return {
    before: read,
    async after(snapshot) {
      const now = await read();
      if (now === undefined) return undefined;
      const added = [...now.paths].filter((entry) => !snapshot.paths.has(entry));
      if (added.length === 0) return added;
      last = undefined;
      return (await removeEntries(added)) ? added : undefined;
    },
  };
}

/** The index file's identity and times, to tell whether it changed; `none` when there is none. */
async function stampOf(file: string): Promise<string> {
  const entry = await lstat(file, { bigint: true }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  return entry === undefined ? NO_INDEX : `${entry.dev}:${entry.ino}:${entry.size}:${entry.mtimeNs}:${entry.ctimeNs}`;
}
