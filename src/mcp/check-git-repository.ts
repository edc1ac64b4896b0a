import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { ToolPolicyError, ToolUnavailableError, type ResolvedAction, type ToolHost } from '../core/internal.js';
import { asPermissionDenial } from '../node/errors/host-denial.js';
import { gitHardeningEnv } from '../node/process/build-child-env.js';
import { findProgram } from '../node/process/find-program.js';
import { readConfigWithGit } from '../node/process/guard-nested-repositories.js';
import { scopedConfigEntries } from '../node/process/scoped-config-entries.js';
import { readRepositoryCode } from '../node/process/read-repository-code.js';
import { PROBED_KEYS } from '../node/process/repository-git-overrides.js';
import { spawnBounded } from '../node/process/spawn-bounded.js';
import { SYSTEM_PATH } from '../node/process/system-path.js';

const isDirectory = (place: string): boolean => statSync(place, { throwIfNoEntry: false })?.isDirectory() === true;

/** A git folder as GitPython's `Repo` takes one: a `HEAD` file beside `objects/` and `refs/`. */
function isGitFolder(place: string): boolean {
  return statSync(path.join(place, 'HEAD'), { throwIfNoEntry: false })?.isFile() === true && isDirectory(path.join(place, 'objects')) && isDirectory(path.join(place, 'refs'));
}

/**
 * Before a call of the git reference server: refuse it when the repository
 * its `repo_path` opens holds anything git or GitPython would run there.
 * The server opens the repository at `repo_path` alone (GitPython's `Repo`:
 * a folder that is a git folder as it stands, or one holding a `.git`
 * folder or gitdir file) and runs git in it on the host, outside the
 * sandbox, with that repository's configuration; GitPython's `index.commit`
 * runs the `hooks/` of its git folder itself, whatever git's settings say.
 * A workspace can ship a git folder as ordinary files (`HEAD`, `config`,
 * `objects/`, `refs/`, `hooks/`), so what the server would run is read as
 * for a nested repository (`readRepositoryCode`): every setting that is not
 * neutral, every hook, every include. The workspace's own git folder is the
 * user's, held by the sandbox from commands and by the protected paths from
 * the file tools, and is not read so; but a file its configuration includes
 * may lie in the work tree, which anything may write, so git is asked what
 * the repository's own scopes set, includes followed (`ownProgramKeys`).
 * The findings name keys and files, never a value.
 */
export async function checkGitRepository(host: ToolHost, tool: string, repoPath: string | undefined, action: ResolvedAction | undefined, commits: boolean): Promise<void> {
  if (repoPath === undefined) throw new ToolPolicyError(tool, 'target_unavailable', { detail: 'was refused: it names no repository for the server to open' });
  const workspace = (host as { readonly workspace?: unknown }).workspace;
  const target = action?.resolvedBy === 'host' ? action.files.find((file) => file.requested === repoPath) : undefined;
  if (typeof workspace !== 'string' || target === undefined) {
    throw new ToolUnavailableError(tool, 'fs', 'the host cannot read the repository the git server would run in');
  }
  const root = realpathSync(workspace);
  // Inside the workspace the host names it from there.
  const place = path.resolve(root, target.real);
  const entry = repositoryAt(place, tool);
  // No repository there: the server opens none (`git_init` makes one, with git's template pinned off).
  if (entry === undefined) return;
  const git = findProgram('git', SYSTEM_PATH);
  if (git === undefined) throw new ToolUnavailableError(tool, 'process', 'no git on the host to read the repository with');
  const own = path.join(workspace, '.git');
  const heldGitDir = lstatSync(own, { throwIfNoEntry: false })?.isDirectory() === true ? realpathSync(own) : undefined;
  const env = { PATH: SYSTEM_PATH.join(':'), HOME: '/nonexistent', LANG: 'C.UTF-8', ...gitHardeningEnv('false') };
  const findings = await readRepositoryCode(entry, { readConfig: (text) => readConfigWithGit({ git, env }, text), heldGitDir, workspace: root });
  // A nested repository that holds nothing may still lead git into the workspace's own (its `core.worktree` names a
  // folder there, where git finds the workspace's `.git`): the workspace's own is probed whichever repository is named.
  const probed = heldGitDir ?? entry;
  const whats = findings.length > 0 ? findings.map((finding) => finding.what) : await ownProgramKeys({ git, entry: probed, workTree: probed === entry ? place : root, env, tool, commits });
  if (whats.length === 0) return;
  const named = [...new Set(whats)].slice(0, 8).join(', ');
  throw new ToolPolicyError(tool, 'protected_path', {
    detail: `was refused: the repository it names holds what git or GitPython would run there, outside any sandbox (${named}); run git in it through run_command, or remove these`,
  });
}

/**
 * The git folder GitPython's `Repo` opens at `place`: the place itself, its
 * `.git`, or none. A place the host may not look into (another user's
 * folder, for a gateway run as a user) is refused: what it holds cannot be
 * read for what git would run there, and the server, run by the same user,
 * could open no repository in it either.
 */
function repositoryAt(place: string, tool: string): string | undefined {
  try {
    if (isGitFolder(place)) return place;
    return lstatSync(path.join(place, '.git'), { throwIfNoEntry: false }) === undefined ? undefined : path.join(place, '.git');
  } catch (error) {
    throw asPermissionDenial(tool, error);
  }
}

/**
 * The program-naming keys (`PROBED_KEYS`: filter, diff and merge drivers, a
 * conditional include, …) that the repository's own scopes set, as git reads
 * them, includes followed: the server's environment pins the fixed names
 * (`core.fsmonitor`, `core.hooksPath`, `diff.external`) but cannot name
 * these in advance. Aliases are left out: the server runs git's own
 * commands, which no alias replaces. Reading configuration runs nothing.
 *
 * For a commit, also the hooks of a `core.hooksPath` the repository sets
 * (husky's `.husky`, a folder of the work tree any command may write):
 * GitPython's `index.commit` runs the commit hooks itself, and the GitPython
 * that reads `core.hooksPath` reads it from the files, past the server's
 * pinned `/dev/null`.
 */
async function ownProgramKeys(read: {
  readonly git: string;
  readonly entry: string;
  readonly workTree: string;
  readonly env: Readonly<Record<string, string>>;
  readonly tool: string;
  readonly commits: boolean;
}): Promise<string[]> {
  const { git, entry, env, tool } = read;
  const run = (args: readonly string[]) =>
    spawnBounded({ file: git, args: ['--git-dir', entry, ...args], cwd: '/', env: { ...env, LC_ALL: 'C', GIT_NO_LAZY_FETCH: '1' }, timeoutMs: 10_000, maxOutputBytes: 256 * 1024, killGraceMs: 500 });
  const unread = new ToolPolicyError(tool, 'protected_path', { detail: 'was refused: git could not read the configuration of the repository it names' });
  // `git config` outside a repository reads the user's files alone and finds nothing: make sure git opened this one.
  const opened = await run(['rev-parse', '--absolute-git-dir']);
  if (opened.exitCode !== 0 || opened.spawnError !== undefined) throw unread;
  const probe = await run(['config', '--show-scope', '--null', '--get-regexp', read.commits ? `${PROBED_KEYS}|^core\\.hookspath$` : PROBED_KEYS]);
  // Exit 1: no key matched. Anything else but success: the configuration could not be read, and is not assumed clean.
  if (probe.exitCode === 1 && probe.stdout === '') return [];
  if (probe.exitCode !== 0 || probe.truncated || probe.spawnError !== undefined) throw unread;
  const keys: string[] = [];
  for (const { scope, name, value } of scopedConfigEntries(probe.stdout)) {
    if ((scope !== 'local' && scope !== 'worktree') || name.startsWith('alias.')) continue;
    if (name === 'core.hookspath') {
      if (holdsHooks(path.resolve(read.workTree, value ?? ''))) keys.push('config: core.hooksPath, a hooks folder a commit runs');
      continue;
    }
    keys.push(`config: ${name.replace(/[^\x20-\x7e]/g, '?')}`);
  }
  return keys;
}

/** Whether a hooks folder holds anything but git's `.sample` files (a folder that cannot be listed counts as holding some). */
function holdsHooks(folder: string): boolean {
  try {
    return readdirSync(folder).some((name) => !name.endsWith('.sample'));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
