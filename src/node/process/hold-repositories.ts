import { lstatSync } from 'node:fs';
import path from 'node:path';
import { findGitUnwrittenCode, findRepositoryCode, findWorkTreeCode, type RepositoryCode } from './find-repository-code.js';
import { findSubmoduleCode, UnheldSubmoduleError, type SubmoduleCode } from './find-submodule-code.js';
import { createGitlinkGuard, type GitlinkBaseline, type GitlinkGuard } from './guard-gitlinks.js';

/** A repository whose index a command is held to: the workspace's, or a submodule's. */
interface HeldIndex {
  readonly guard: GitlinkGuard;
  readonly baseline: GitlinkBaseline;
  /** Its working tree, relative to the workspace (`''` for the workspace's own). */
  readonly where: string;
  /** Its git folder, relative to the workspace when inside it. */
  readonly gitDir: string;
}

/** What a command is held to while it runs. */
export interface EnteredRepositories {
  /** What the sandbox holds read-only and in place, when asked for. */
  readonly code: RepositoryCode | undefined;
  readonly indexes: readonly HeldIndex[];
}

/** After the command, over every index it was held to. */
export interface RepositoriesCheck {
  /** The submodule entries taken out, each as a path from the workspace (`libs/sub/inner`). */
  readonly removed: readonly string[];
  /** Indexes moved aside because their entries could not be checked or taken out: each as a path from the workspace. */
  readonly quarantined: readonly string[];
  /** Indexes left as the command left them: neither checked nor moved aside. */
  readonly failed: readonly string[];
}

/** Why a command is not run: what could not be listed or held. */
export class UnheldRepositoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnheldRepositoryError';
  }
}

export interface RepositoryHolderOptions {
  readonly workspace: string;
  /** The host's git, and a hardened environment for it. */
  readonly git: string;
  readonly env: Readonly<Record<string, string>>;
  /** Repositories (the workspace's and its submodules', nested ones included) past which a command is not run. */
  readonly maxRepositories?: number;
}

/**
 * Whom the sandbox holds to the repositories' code: a sandboxed program, to all of it; toolgate's own git, to what
 * git never writes (`findGitUnwrittenCode`) and to the work tree's code (`findWorkTreeCode`); nothing, without a sandbox.
 */
export type HeldFor = 'program' | 'git' | 'nothing';

export interface RepositoryHolder {
  /** Before a command: every index's baseline, and what the sandbox must hold for `heldFor`. Throws `UnheldRepositoryError`. */
  enter(heldFor: HeldFor): Promise<EnteredRepositories>;
  /** After it, whatever became of it: the gitlinks it added to any of those indexes taken out. */
  leave(entered: EnteredRepositories): Promise<RepositoriesCheck>;
}

const DEFAULT_MAX_REPOSITORIES = 256;

/**
 * The workspace's repository and, through the gitlinks of each index, every
 * submodule's (nested ones too): the user's own `git status` enters each one
 * populated, with its own configuration, hooks and index. Each index gets a
 * gitlink guard (`createGitlinkGuard`), so a command can list no new
 * repository in a submodule's index either (toolgate's own git, which the
 * sandbox does not hold, included); and each submodule gets its places held
 * (`findSubmoduleCode`), so a sandboxed command can neither plant code in
 * its repository, nor point its `.git` elsewhere, nor put another
 * repository in its place, nor make one where it has none, nor one in
 * `.git/modules` for the user's `git submodule update` to take up. The
 * submodules are those of each index's baseline, never of what a command
 * left. Walked at each spawn. A folder the file system refuses (one that
 * cannot be made or read) throws its error, with its code.
 */
export function createRepositoryHolder(options: RepositoryHolderOptions): RepositoryHolder {
  const { workspace } = options;
  const maxRepositories = options.maxRepositories ?? DEFAULT_MAX_REPOSITORIES;
  const guards = new Map<string, GitlinkGuard>();
  const guardOf = (gitDir: string, workTree: string): GitlinkGuard => {
    const key = `${gitDir}\0${workTree}`;
    let guard = guards.get(key);
    if (guard === undefined) guards.set(key, (guard = createGitlinkGuard({ gitDir, workTree, git: options.git, env: options.env })));
    return guard;
  };
  const fromWorkspace = (target: string): string => path.relative(workspace, target).split(path.sep).join('/');

  const leave = async (entered: EnteredRepositories): Promise<RepositoriesCheck> => {
    const checks = await Promise.all(entered.indexes.map(async (index) => ({ index, check: await index.guard.after(index.baseline) })));
    const removed: string[] = [];
    const quarantined: string[] = [];
    const failed: string[] = [];
    for (const { index, check } of checks) {
      if (check.kind === 'checked') removed.push(...check.removed.map((entry) => (index.where === '' ? entry : `${index.where}/${entry}`)));
      else if (check.kind === 'quarantined') quarantined.push(`${index.gitDir}/${check.name}`);
      else failed.push(index.gitDir);
    }
    return { removed, quarantined, failed };
  };

  return {
    async enter(heldFor) {
      const indexes: HeldIndex[] = [];
      const folders: string[] = [];
      const readOnly: string[] = [];
      try {
        if (heldFor === 'program') {
          const own = findRepositoryCode(workspace);
          folders.push(...(own?.folders ?? []));
          readOnly.push(...(own?.readOnly ?? []));
        }
        const seen = new Set<string>();
        const queue = hasGitFolder(workspace) ? [{ gitDir: path.join(workspace, '.git'), workTree: workspace }] : [];
        if (heldFor === 'git' && queue.length > 0) folders.push(path.join(workspace, '.git'));
        // The work tree's hooks folder and included configuration: git checks files out there as anywhere else.
        if (heldFor === 'git') readOnly.push(...findWorkTreeCode(workspace));
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          if (seen.has(next.gitDir)) continue;
          seen.add(next.gitDir);
          if (seen.size > maxRepositories) throw new UnheldRepositoryError(`the workspace holds more than ${maxRepositories} repositories (its own and its submodules'), more than toolgate holds a command to, so the command was not run`);
          const guard = guardOf(next.gitDir, next.workTree);
          const baseline = await guard.before();
          const where = fromWorkspace(next.workTree);
          if (baseline === undefined) throw new UnheldRepositoryError(`git could not list the index of ${where === '' ? 'the repository' : `the submodule ${where}`} to note its submodule entries, so the command was not run`);
          indexes.push({ guard, baseline, where, gitDir: fromWorkspace(next.gitDir) });
          if (heldFor === 'git') readOnly.push(...findGitUnwrittenCode(next.gitDir));
          for (const entry of [...baseline.paths].sort()) {
            const code = unlessUnheld(heldFor === 'program', () => findSubmoduleCode(next.workTree, entry));
            if (heldFor === 'program') readOnly.push(...(code?.readOnly ?? []));
            if (code?.populated !== undefined) queue.push(code.populated);
          }
        }
      } catch (error) {
        await leave({ code: undefined, indexes });
        if (error instanceof UnheldSubmoduleError) throw new UnheldRepositoryError(`${error.message}, so toolgate cannot hold it in place and the command was not run`);
        throw error;
      }
      return { code: folders.length > 0 || readOnly.length > 0 ? { folders, readOnly } : undefined, indexes };
    },
    leave,
  };
}

/**
 * A submodule's code; one that cannot be held in place refuses a command the
 * sandbox would hold, and is passed over for toolgate's own git, which is held
 * to the indexes alone: the user's git cannot enter it as it is, and git is
 * what repairs it (`git rm --cached`, `git submodule absorbgitdirs`).
 */
function unlessUnheld(hold: boolean, find: () => SubmoduleCode): SubmoduleCode | undefined {
  try {
    return find();
  } catch (error) {
    if (!hold && error instanceof UnheldSubmoduleError) return undefined;
    throw error;
  }
}

/** Whether the workspace holds a `.git` folder: its own repository, whose index the user's git reads. */
function hasGitFolder(workspace: string): boolean {
  return lstatSync(path.join(workspace, '.git'), { throwIfNoEntry: false })?.isDirectory() === true;
}
