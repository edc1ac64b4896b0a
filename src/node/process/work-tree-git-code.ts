import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { isInside } from '../fs/fs-jail.js';
import { withGitConfig } from './build-child-env.js';
import { settledBefore } from './files-stamp.js';
import { gitConfigStamp } from './git-config-stamp.js';
import { findRepository } from './object-store-stamp.js';
import { SYSTEM_PATH } from './system-path.js';

/** The keys whose values name a place of the repository's code, as git spells them in its listing (lower case). */
const PLACE_KEYS = '^(core\\.hookspath|include\\.path|includeif\\..*\\.path)$';

/** How long git may take to list the configuration, on the gateway's thread; past it, nothing it would name is known. */
const GIT_TIMEOUT_MS = 2000;

/**
 * The variables of the user's environment that say where the user's git
 * reads its configuration: the user's own and the system's files moved
 * (`XDG_CONFIG_HOME`, `GIT_CONFIG_GLOBAL`), and keys given in the
 * environment (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_0`, …).
 */
const CONFIG_PLACE_VARIABLE = /^(?:XDG_CONFIG_HOME|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG_NOSYSTEM|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG_VALUE_\d+)$/;

/**
 * git as the user runs it, in the gateway's environment, which is the
 * user's, but found in the system's folders only: every configuration file
 * the user's git reads (the system's, the user's where the environment
 * puts it, the repository's and what they include) and every key the
 * environment gives is listed, and none of the host's hardening is added,
 * which sets `core.hooksPath` to `/dev/null`. `safe.directory` is answered
 * in the command's own configuration, where git reads it: a repository
 * another user owns is one the user's git, told to trust it, runs in all
 * the same. Read at each listing, as the user's git reads it at each run.
 */
function gitEnv(places: Readonly<Record<string, string>>): Record<string, string> {
  return withGitConfig({ ...places, PATH: SYSTEM_PATH.join(':'), HOME: homedir(), LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' }, [['safe.directory', '*']]);
}

/** The variables of the gateway's environment that say where the user's git reads its configuration. */
function configPlaces(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => CONFIG_PLACE_VARIABLE.test(entry[0]) && entry[1] !== undefined));
}

/**
 * The last answer for each workspace, with the stamp of the files git read
 * for it (`gitConfigStamp`): a command asks for these places several times
 * (its walk, its repositories, its links) and each command again, and each
 * asking was a git process on the gateway's thread.
 */
const kept = new Map<string, Listed & { readonly stamp: string }>();
const MAX_KEPT = 16;

/** One listing of a workspace's repository: what it names, and where its hooks are. */
interface Listed {
  readonly top: string;
  readonly included: readonly string[];
  readonly code: WorkTreeGitCode;
  /** Every folder the user's git runs hooks from, in the workspace or not. */
  readonly hooksRun: readonly string[];
}

/** What of the work tree the user's git runs or reads as its configuration. */
export interface WorkTreeGitCode {
  /** The folders `core.hooksPath` names (husky's `.husky`): what is there runs at the next commit, checkout or push. */
  readonly hooksFolders: readonly string[];
  /** The configuration files an include names (`include.path = ../shared.gitconfig`): a key there can name a program. */
  readonly configFiles: readonly string[];
}

/**
 * The places of the workspace, absolute, that the workspace repository's
 * configuration makes its code: the hooks folder `core.hooksPath` names (a
 * relative one from the top of the work tree, as git runs it) and each file
 * an `include.path` or `includeIf.*.path` names, whatever its condition (one
 * it leaves out today may be read after a checkout).
 * Under an ordinary name, neither a file tool nor the sandbox would hold
 * them, and what the model writes there the user's git runs outside toolgate
 * and its sandbox: a hook at the next commit, a `core.fsmonitor` at the
 * next `git status`. Places outside the workspace are left out (the model
 * writes there only in the `full` tier, where the rules judge each write).
 * The repository is the one the user's git finds from the workspace: its
 * own, or the one whose work tree holds it (a package of a monorepo, where
 * husky is set up as `core.hooksPath = frontend/.husky/_`).
 * Nothing when no `.git` holds the workspace, or when git cannot read the
 * configuration (then the user's git cannot either, and runs nothing of it);
 * throws when git does not answer within 2 s or past 1 MiB.
 */
export function workTreeGitCode(workspace: string): WorkTreeGitCode {
  return listed(workspace)?.code ?? { hooksFolders: [], configFiles: [] };
}

/**
 * The folders the user's git runs the hooks of for the workspace's
 * repository, wherever they are (those `core.hooksPath` names, husky's
 * `.husky` with its `.husky/_`, or the git folder's own `hooks`), with the
 * top of its work tree; undefined when no `.git` holds the workspace. A
 * hook manager's shim there runs what a file of the work tree says
 * (`hookManagerPlaces`). Read from the same listing as `workTreeGitCode`.
 */
export function gitHooksFolders(workspace: string): { readonly top: string; readonly folders: readonly string[] } | undefined {
  const found = listed(workspace);
  return found === undefined ? undefined : { top: found.top, folders: found.hooksRun };
}

/** The workspace's listing, kept while the files git read for it are the same (`gitConfigStamp`). */
function listed(workspace: string): Listed | undefined {
  const top = workTreeTop(workspace);
  if (top === undefined) return undefined;
  const places = configPlaces();
  const known = kept.get(workspace);
  if (known !== undefined && known.top === top && gitConfigStamp(top, places, known.included)?.text === known.stamp) return known;
  const startedMs = Date.now();
  const found = listWorkTreeGitCode(workspace, top, places);
  const stamp = gitConfigStamp(top, places, found.included);
  kept.delete(workspace);
  // Kept only when no file it covers changed since git began to read (`settledBefore`).
  if (stamp !== undefined && settledBefore(stamp, startedMs)) {
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(workspace, { ...found, stamp: stamp.text });
  }
  return found;
}

/** What git names now, and every configuration file an include names (those outside the workspace too: each is read). */
function listWorkTreeGitCode(workspace: string, top: string, places: Readonly<Record<string, string>>): Listed {
  const none = { top, included: [], code: { hooksFolders: [], configFiles: [] }, hooksRun: ownHooks(top) };
  let text: string;
  try {
    // Only the keys that name a place: a configuration padded to any size answers in a few lines.
    text = execFileSync('git', ['--git-dir', path.join(top, '.git'), 'config', '--null', '--show-origin', '--includes', '--get-regexp', PLACE_KEYS], {
      cwd: top,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: 1024 * 1024,
      env: gitEnv(places),
    });
  } catch (error) {
    // A git that did not answer in time (an include naming a FIFO holds it) or said too much has said nothing: the
    // places are not known, and the caller refuses what it cannot hold (a typed error carrying the code).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ETIMEDOUT' || code === 'ENOBUFS') throw error;
    // None of those keys set (git's exit status 1), no git, or a configuration git refuses: nothing named.
    return none;
  }
  const hooksFolders = new Set<string>();
  const configFiles = new Set<string>();
  const fields = text.split('\0');
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const origin = fields[index] as string;
    const entry = fields[index + 1] as string;
    const file = origin.startsWith('file:') ? path.resolve(top, origin.slice('file:'.length)) : undefined;
    const newline = entry.indexOf('\n');
    if (newline === -1) continue;
    const key = entry.slice(0, newline);
    const value = expandHome(entry.slice(newline + 1));
    if (key === 'core.hookspath') {
      const folder = path.resolve(top, value);
      hooksFolders.add(folder);
      // husky (9 and on) sets `.husky/_`, whose every hook runs the script of its name in the folder above, `.husky`.
      if (path.basename(folder) === '_') hooksFolders.add(path.dirname(folder));
    } else if (key === 'include.path' || (key.startsWith('includeif.') && key.endsWith('.path'))) {
      // Relative to the file that holds it; one the environment gives is followed by git only when absolute.
      if (file !== undefined) configFiles.add(path.resolve(path.dirname(file), value));
      else if (path.isAbsolute(value)) configFiles.add(value);
    }
  }
  const inWorkspace = (place: string): boolean => isInside(workspace, place);
  const hooksRun = hooksFolders.size === 0 ? ownHooks(top) : [...hooksFolders];
  return { top, included: [...configFiles], code: { hooksFolders: [...hooksFolders].filter(inWorkspace), configFiles: [...configFiles].filter(inWorkspace) }, hooksRun };
}

/** The hooks folder of the repository's git folder (the common one of a linked worktree), where git runs hooks without `core.hooksPath`. */
function ownHooks(top: string): string[] {
  const repository = findRepository(top);
  return repository === undefined ? [] : [path.join(repository.commonDir, 'hooks')];
}

/**
 * The top of the work tree the workspace lies in: the workspace, or the
 * nearest folder above it holding a `.git`, where the user's git finds the
 * repository it runs the hooks of. A workspace in a package of a monorepo
 * has no `.git` of its own, and its hooks folder is named from the top.
 */
function workTreeTop(workspace: string): string | undefined {
  for (let folder = workspace; ; folder = path.dirname(folder)) {
    if (lstatSync(path.join(folder, '.git'), { throwIfNoEntry: false }) !== undefined) return folder;
    if (path.dirname(folder) === folder) return undefined;
  }
}

/** `~/…` from the home, as git reads a path in its configuration. */
function expandHome(value: string): string {
  return value === '~' || value.startsWith('~/') ? path.join(homedir(), value.slice(1)) : value;
}
