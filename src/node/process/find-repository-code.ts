import { lstatSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { clientRunFiles } from './client-run-files.js';
import { hookManagerPlaces } from './hook-manager-config.js';
import { hookManagerRunFiles } from './hook-manager-run-files.js';
import { workTreeGitCode } from './work-tree-git-code.js';

/** What of the workspace's repositories the user's own git runs as code, for the sandbox to hold. */
export interface RepositoryCode {
  /**
   * Folders bound onto themselves, writable as before: the workspace's `.git`, so no command can move it aside and
   * build another. The folders above each held place are bound the same way by the sandbox.
   */
  readonly folders: readonly string[];
  /** Held read-only: hooks folders and configuration files (a key there can name a program: `core.fsmonitor`, `core.hooksPath`), the files a client's settings run, submodules' `.git` files and git folders, unpopulated submodules' folders. */
  readonly readOnly: readonly string[];
}

/**
 * The names below a git folder whose content the user's git runs or reads programs from. `commondir` names the
 * folder git reads the configuration and hooks from (a linked worktree's): pointed at a folder a command built, it
 * would stand another `config` and `hooks` in for the ones held here. `modules` holds the submodules' git folders:
 * a command could make one there, for a submodule listed now or by a commit the user checks out later, which the
 * user's `git submodule update` would take up as that submodule's repository, configuration and hooks included.
 */
const CODE_NAMES = ['hooks', 'config', 'config.worktree', 'commondir', 'modules'];

/**
 * The code names git itself never writes in the work it is asked to do (toolgate's git makes repositories without a
 * template, and the git rules refuse `config --worktree` writes): held read-only for toolgate's own git too, which
 * a subcommand writing where a patch or a nested repository's work tree leads could otherwise turn into a hook
 * or, in a submodule's git folder, a `commondir` naming a folder a command built.
 */
const GIT_UNWRITTEN_NAMES = ['hooks', 'config.worktree', 'commondir'];

/** What a placed `commondir` says: the repository's own folder, which is where git looks without one. */
const OWN_COMMON_DIR = '.\n';

/**
 * The workspace's own repository, when its `.git` is a folder: the sandbox
 * binds it onto itself and its hooks and configuration read-only, so a
 * command (a script of the repository, an archive extracted by a name its
 * argv never shows) cannot plant a hook or a program-naming key that the
 * user's git, outside toolgate and its sandbox, runs at the next commit.
 * toolgate's own git runs neither (its hardening), and writes its
 * configuration, so a `git` command is held to less (`findGitUnwrittenCode`,
 * and the work tree's code, `findWorkTreeCode`); what it may change of
 * `.git` is judged by the git rules.
 * Checked at each spawn.
 */
export function findRepositoryCode(workspace: string): RepositoryCode | undefined {
  const gitDir = path.join(workspace, '.git');
  const own = lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory() === true;
  // A linked worktree's or a submodule's `.git` is a file, and a package of a monorepo has none: its git folder is not
  // held here (nor in the workspace), its work tree's code is.
  const readOnly = own ? findGitDirCode(gitDir, CODE_NAMES) : [];
  for (const real of findWorkTreeCode(workspace)) if (!readOnly.includes(real)) readOnly.push(real);
  if (!own) return readOnly.length === 0 ? undefined : { folders: [], readOnly };
  return { folders: [gitDir], readOnly };
}

/**
 * The places of the work tree that run outside toolgate by themselves,
 * absolute, made or not: the hooks folder `core.hooksPath` names and each
 * configuration file an include names (`workTreeGitCode`), which the user's
 * git runs and reads as it does `.git/hooks` and `.git/config`, and the
 * files a protected client configuration runs (`clientRunFiles`: a hook
 * script of Claude Code's `.claude/settings.json`), which the client runs
 * at the user's next session, and what a hook manager's shim in the hooks
 * folder runs commands from (`hookManagerPlaces`: `.pre-commit-config.yaml`)
 * and the files those commands name (`hookManagerRunFiles`: its `entry:
 * ./scripts/check.sh`), which the user's git runs with the hook.
 */
export function workTreeCodePlaces(workspace: string): string[] {
  const { hooksFolders, configFiles } = workTreeGitCode(workspace);
  return [...hooksFolders, ...configFiles, ...clientRunFiles(workspace), ...hookManagerPlaces(workspace), ...hookManagerRunFiles(workspace)];
}

/**
 * The work tree's code (`workTreeCodePlaces`: husky's `.husky`, an included
 * configuration, a client's hook script), real, as it is now: the
 * repository's code like `.git/hooks` and `.git/config`, under names of the
 * work tree. Held read-only for every command, toolgate's own git included:
 * git writes its work tree where a checkout, a reset or a patch leads, and a
 * blob the model put in the index checked out there is a hook the user's
 * next commit runs. One not made yet cannot be bound: what a command makes
 * there is moved aside after it (`keptLinksOf`).
 */
export function findWorkTreeCode(workspace: string): string[] {
  const found: string[] = [];
  for (const place of workTreeCodePlaces(workspace)) {
    const real = lstatSync(place, { throwIfNoEntry: false }) === undefined ? undefined : realpathOrSelf(place);
    if (real !== undefined && !found.includes(real)) found.push(real);
  }
  return found;
}

/**
 * What of a git folder is held for toolgate's own git, which writes its
 * configuration, index, objects and refs: its hooks, `config.worktree` and
 * `commondir` (`GIT_UNWRITTEN_NAMES`), placed where missing as for a
 * sandboxed program.
 */
export function findGitUnwrittenCode(gitDir: string): string[] {
  return findGitDirCode(gitDir, GIT_UNWRITTEN_NAMES);
}

/**
 * The `names` of a git folder to hold read-only, as they are now. A missing
 * hooks or `modules` folder among them is created first (as `git init` and
 * the first submodule make them), since a mount needs a place and an absent
 * folder is one a command could create. So is a missing `commondir`, naming
 * the folder itself (git then reads what it read without one): absent, a
 * command could write one naming its own folder. And a missing
 * `config.worktree`, empty: git reads it once the user sets
 * `extensions.worktreeConfig`. A name there that is a link is held where it
 * leads.
 */
function findGitDirCode(gitDir: string, names: readonly string[]): string[] {
  for (const folder of ['hooks', 'modules']) {
    const target = path.join(gitDir, folder);
    if (names.includes(folder) && lstatSync(target, { throwIfNoEntry: false }) === undefined) mkdirSync(target, { recursive: true, mode: 0o755 });
  }
  placeFile(path.join(gitDir, 'commondir'), OWN_COMMON_DIR);
  placeFile(path.join(gitDir, 'config.worktree'), '');
  const readOnly: string[] = [];
  for (const name of names) {
    const target = path.join(gitDir, name);
    const entry = lstatSync(target, { throwIfNoEntry: false });
    if (entry === undefined) continue;
    // A dangling link is left to fail the spawn: bwrap cannot bind it, and the command does not run unguarded.
    readOnly.push(entry.isSymbolicLink() ? realpathOrSelf(target) : target);
    // A hook that is a link (to `tools/hooks/pre-commit`, a common way to keep hooks in the work tree) runs what it leads
    // to: held there too, or a command would change what the user's git runs at the next commit by the target's name.
    // One that leads nowhere yet cannot be bound: the file tools ask for its target (`LinkedProtection`).
    if (name === 'hooks') for (const hook of hookLinks(target)) if (realpathOrSelf(hook) !== hook) readOnly.push(realpathOrSelf(hook));
  }
  return readOnly;
}

/** `content` at `target` where there is nothing; a file made in the meantime (or a link there) is left as it is, and held. */
function placeFile(target: string, content: string): void {
  if (lstatSync(target, { throwIfNoEntry: false }) !== undefined) return;
  try {
    writeFileSync(target, content, { flag: 'wx', mode: 0o644 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * The workspace repository's code that is a link: `.git/hooks`, `.git/config`
 * and the other names git runs or reads programs from, and each hook in
 * the hooks folder (where it leads, when it is a link itself) that is one;
 * and the work tree's code (`workTreeCodePlaces`), links or not, made or
 * not: the walk of the workspace reads it under ordinary names, so it is
 * learned here as the places the user's git, or a client, runs by itself.
 */
export function repositoryCodeLinks(workspace: string): string[] {
  const gitDir = path.join(workspace, '.git');
  const workTreeCode = workTreeCodePlaces(workspace);
  if (lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory() !== true) return workTreeCode;
  const links = CODE_NAMES.map((name) => path.join(gitDir, name)).filter((entry) => lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink() === true);
  return [...links, ...hookLinks(path.join(gitDir, 'hooks')), ...workTreeCode];
}

/** The hooks in the folder `hooks` that are links. */
export function hookLinks(hooks: string): string[] {
  let names: string[];
  try {
    names = readdirSync(hooks);
  } catch {
    return [];
  }
  return names.map((name) => path.join(hooks, name)).filter((hook) => lstatSync(hook, { throwIfNoEntry: false })?.isSymbolicLink() === true);
}

/** Where a path really leads, or the path itself when it does not exist (or cannot be followed). */
export function realpathOrSelf(target: string): string {
  try {
    return realpathSync.native(target);
  } catch {
    return target;
  }
}
