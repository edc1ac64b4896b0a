import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { withoutTrailingRun } from '../../core/policy/trailing-run.js';
import { nodeSha256 } from '../digest/node-sha256.js';
import { findModuleGitDirs } from './find-git-directories.js';
import { isNeutralSetting, type ConfigEntry } from './neutral-git-config.js';

/** Something in a repository that git entering it may run, or that keeps git from reading it as it stands. */
export interface CodeFinding {
  /** What it is, for a person: `config: core.fsmonitor`, `hooks/post-checkout`. Never a value, which may be a secret. */
  readonly what: string;
  /**
   * What it is exactly: the real path of the file it was read from, and a
   * digest of its value or content, so that a value changed is another
   * finding, and a repository reached through another `.git` (a linked
   * worktree's) holds the same findings as the one it shares them with.
   */
  readonly identity: string;
}

/** A configuration file's settings as git reads them; undefined when git cannot read the file. */
export type ReadConfig = (text: string) => Promise<readonly ConfigEntry[] | undefined>;

export interface RepositoryCodeOptions {
  readonly readConfig: ReadConfig;
  /** The workspace's own git folder, real: the sandbox holds its configuration and hooks, which are the user's. */
  readonly heldGitDir: string | undefined;
  /** The workspace, real: a work tree git may check files out into lies in it, outside any git folder. */
  readonly workspace: string;
}

/** A `.git` file longer than this is no gitdir line git would read. */
const MAX_GITFILE_BYTES = 4096;
/** A configuration file or `commondir` longer than this is not handed to git whole: a finding. */
const MAX_TEXT_BYTES = 1024 * 1024;
/** Entries of a repository's `modules` folder read, at most, for its submodules' git folders. */
const MAX_MODULE_ENTRIES = 4096;
/** git follows includes this deep, and no deeper. */
const MAX_INCLUDE_DEPTH = 10;

/** Where a git folder's configuration is read from: its label in findings, and the work tree it checks out. */
interface GitDirPlace {
  readonly label: string;
  /** The work tree, real, when known: a relative `core.hooksPath` is taken from there. */
  readonly workTree: string | undefined;
  /** Whether its `modules` folder is read too (the submodules' git folders found there are not read for theirs again). */
  readonly modules: boolean;
}

/**
 * Everything in the repository whose `.git` is `entry` (a folder, a gitdir
 * file, or a link to either) that git, entering it as a submodule (`git
 * status`, `git diff`, `git submodule update`, `--recursive` included), may
 * run:
 *
 * - each setting of its configuration that is not neutral
 *   (`isNeutralSetting`; `core.worktree` naming a folder of the workspace
 *   outside any git folder is), in `config`, in `config.worktree`, in the
 *   folder its `commondir` names, and in every file an include names;
 * - each hook: every entry of `hooks` but git's `.sample` files, and of the
 *   folder `core.hooksPath` names (a folder of the work tree, as husky sets
 *   it, is code too);
 * - the same for the git folder of each of its submodules, in `modules`,
 *   which `git submodule update` takes up.
 *
 * A `.git` git cannot read as it stands (a malformed gitdir file, a file the
 * host cannot read) is a finding too: what it would become is not known.
 * The workspace's own git folder is not read (`heldGitDir`): a linked
 * worktree of the workspace's repository shares its configuration and hooks.
 */
export async function readRepositoryCode(entry: string, options: RepositoryCodeOptions): Promise<CodeFinding[]> {
  const findings: CodeFinding[] = [];
  const gitDir = gitDirOf(entry, findings);
  if (gitDir !== undefined) await readGitDir(gitDir, { label: '', workTree: realOf(path.dirname(entry), 'work tree', findings), modules: true }, options, findings);
  return findings;
}

async function readGitDir(gitDir: string, place: GitDirPlace, options: RepositoryCodeOptions, findings: CodeFinding[]): Promise<void> {
  const commonDir = commonDirOf(gitDir, place.label, findings);
  if (commonDir === undefined) return;
  const folders = commonDir === gitDir ? [gitDir] : [commonDir, gitDir];
  const read: ConfigRead = { gitDir, options, findings, workTrees: place.workTree === undefined ? [] : [place.workTree], hooksPaths: [] };
  for (const folder of folders) {
    if (folder === options.heldGitDir) continue;
    const label = `${place.label}${folder === gitDir ? '' : 'commondir '}`;
    if (folder === folders[0]) await configFindings(path.join(folder, 'config'), `${label}config`, read, 0);
    await configFindings(path.join(folder, 'config.worktree'), `${label}config.worktree`, read, 0);
    hookFindings(path.join(folder, 'hooks'), `${label}hooks`, findings);
  }
  // After every file: git runs hooks from the work tree its settings end on, and any file may set it.
  for (const { named, what } of read.hooksPaths) {
    if (path.isAbsolute(named)) hookFindings(named, what, findings);
    else if (read.workTrees.length === 0) unreadable(what, 'relative to a work tree not known', findings, `${gitDir}: ${named}`);
    for (const workTree of path.isAbsolute(named) ? [] : read.workTrees) hookFindings(`${workTree}/${named}`, what, findings);
  }
  if (!place.modules || commonDir === options.heldGitDir) return;
  const modules = path.join(commonDir, 'modules');
  if (statOf(modules, `${place.label}modules`, findings) === 'absent') return;
  const found: string[] = [];
  if (!(await findModuleGitDirs(modules, found, { left: MAX_MODULE_ENTRIES }, new Set()))) unreadable(`${place.label}modules`, 'more than can be read', findings);
  for (const moduleDir of found.sort()) {
    await readGitDir(moduleDir, { label: `${place.label}modules/${path.relative(modules, moduleDir)} `, workTree: undefined, modules: false }, options, findings);
  }
}

/** The git folder `entry` leads to; undefined, with a finding, when git could not read one there. */
function gitDirOf(entry: string, findings: CodeFinding[]): string | undefined {
  const stats = statOf(entry, '.git', findings);
  if (stats === 'absent' || stats === 'unreadable') return undefined;
  if (stats.isDirectory()) return realOf(entry, '.git', findings);
  if (!stats.isFile()) return unreadable('.git', 'neither a folder nor a file', findings, entry);
  const text = readText(entry, '.git', MAX_GITFILE_BYTES, findings);
  if (text === undefined) return undefined;
  // As git reads one: `gitdir: ` and a path, every line break at its end dropped.
  const gitDir = withoutTrailingLineBreaks(text);
  if (!gitDir.startsWith('gitdir: ')) return unreadable('.git', 'not a gitdir line', findings, entry);
  return joinedReal(path.dirname(entry), gitDir.slice('gitdir: '.length), 'gitdir', findings);
}

/** The folder `commondir` names (where git reads the configuration and hooks from), or the git folder itself. */
function commonDirOf(gitDir: string, label: string, findings: CodeFinding[]): string | undefined {
  const file = path.join(gitDir, 'commondir');
  const stats = statOf(file, `${label}commondir`, findings);
  if (stats === 'absent') return gitDir;
  if (stats === 'unreadable') return undefined;
  const text = readText(file, `${label}commondir`, MAX_TEXT_BYTES, findings);
  if (text === undefined) return undefined;
  return joinedReal(gitDir, withoutTrailingLineBreaks(text), `${label}commondir`, findings);
}

/** A file's text without the line breaks at its end, as git reads a `.git` file or a `commondir` (one a command wrote may hold 200,000 of them). */
function withoutTrailingLineBreaks(text: string): string {
  return withoutTrailingRun(text, (char) => char === '\n' || char === '\r');
}

/**
 * The real path of `named` from `folder`, as git finds it: joined as text and
 * then resolved by the file system, so `link/../g` is the parent of where
 * `link` leads, not `g` beside `link` (which resolving the text first would give).
 */
function joinedReal(folder: string, named: string, what: string, findings: CodeFinding[]): string | undefined {
  return realOf(path.isAbsolute(named) ? named : `${folder}/${named}`, what, findings);
}

/** What reading one repository's configuration needs beside the file, and what it gathers across its files. */
interface ConfigRead {
  readonly gitDir: string;
  readonly options: RepositoryCodeOptions;
  readonly findings: CodeFinding[];
  /** Every work tree its settings may name: its folder's, and each `core.worktree` of any of its files. */
  readonly workTrees: string[];
  /** Each `core.hooksPath` of any of its files, read once all are. */
  readonly hooksPaths: { readonly named: string; readonly what: string }[];
}

async function configFindings(file: string, what: string, read: ConfigRead, depth: number): Promise<void> {
  const { findings } = read;
  if (typeof statOf(file, what, findings) === 'string') return;
  const text = readText(file, what, MAX_TEXT_BYTES, findings);
  if (text === undefined) return;
  const at = realOrUndefined(file) ?? file;
  const entries = await read.options.readConfig(text);
  if (entries === undefined) {
    findings.push({ what: `${what}: git cannot read it`, identity: `${at}: unreadable ${nodeSha256(text)}` });
    return;
  }
  for (const setting of entries) {
    const named = setting.value === undefined ? undefined : expandHome(setting.value);
    if (setting.key === 'core.worktree' && named !== undefined) {
      // Relative to the git folder, as git takes it.
      const workTree = realOrUndefined(path.isAbsolute(named) ? named : `${read.gitDir}/${named}`);
      if (workTree !== undefined) read.workTrees.push(workTree);
      if (isInsideWorkTree(workTree, read.options.workspace)) continue;
    }
    if (isNeutralSetting(setting)) continue;
    findings.push({ what: `${what}: ${setting.key}`, identity: `${at}: ${setting.key} ${nodeSha256(setting.value ?? '')}` });
    if (named === undefined) continue;
    // git runs hooks from the work tree's top, so a relative folder is taken from there, once every file is read.
    if (setting.key === 'core.hookspath') read.hooksPaths.push({ named, what: `${what}: core.hookspath` });
    else if (setting.key === 'include.path' || (setting.key.startsWith('includeif.') && setting.key.endsWith('.path'))) {
      // Whatever its condition: an include the condition leaves out today may be read tomorrow.
      const included = path.isAbsolute(named) ? named : `${path.dirname(file)}/${named}`;
      if (depth >= MAX_INCLUDE_DEPTH) unreadable(`${what}: ${setting.key}`, 'included too deep', findings);
      else await configFindings(included, `${what}: ${setting.key} ${named}`, read, depth + 1);
    }
  }
}

/** Whether a work tree git checks files out into lies in the workspace and in no git folder (`../../.git/hooks` would). */
function isInsideWorkTree(workTree: string | undefined, workspace: string): boolean {
  if (workTree === undefined || !(workTree === workspace || workTree.startsWith(`${workspace}${path.sep}`))) return false;
  return !path.relative(workspace, workTree).split(path.sep).includes('.git');
}

function hookFindings(folder: string, what: string, findings: CodeFinding[]): void {
  if (typeof statOf(folder, what, findings) === 'string') return;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch (error) {
    unreadable(what, codeOf(error), findings);
    return;
  }
  const at = realOrUndefined(folder) ?? folder;
  for (const name of names.sort()) {
    if (name.endsWith('.sample')) continue;
    findings.push({ what: `${what}/${name}`, identity: `${at}/${name} ${contentDigest(path.join(folder, name))}` });
  }
}

/**
 * What is at a place, links followed as git follows them: `absent` when
 * nothing is there (a link leading nowhere included: git reads nothing
 * through it, and once its target is made the next check reads that),
 * `unreadable` with a finding.
 */
function statOf(place: string, what: string, findings: CodeFinding[]): Stats | 'absent' | 'unreadable' {
  try {
    // Without an exception for a missing name, the common case (`commondir`, `config.worktree`), which costs more than the stat.
    return statSync(place, { throwIfNoEntry: false }) ?? 'absent';
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'absent';
    unreadable(what, code, findings, place);
    return 'unreadable';
  }
}

function realOf(place: string, what: string, findings: CodeFinding[]): string | undefined {
  try {
    return realpathSync.native(place);
  } catch (error) {
    return unreadable(what, codeOf(error), findings, place);
  }
}

function realOrUndefined(place: string): string | undefined {
  try {
    return realpathSync.native(place);
  } catch {
    return undefined;
  }
}

/** A path as git reads a pathname setting: `~/` is the home folder. */
function expandHome(named: string): string {
  return named.startsWith('~/') ? path.join(homedir(), named.slice(2)) : named;
}

/**
 * A regular file's text, read without blocking: a FIFO or a device put
 * where git reads a file would hold the host's one thread at `open` or
 * `read` (git would hang on it too, and run nothing). Anything but a regular
 * file of at most `maxBytes` is a finding.
 */
function readText(file: string, what: string, maxBytes: number, findings: CodeFinding[]): string | undefined {
  try {
    return withRegularFile(file, (fd, size) => {
      if (size > maxBytes) throw Object.assign(new Error('too long'), { code: 'too long to read' });
      const buffer = Buffer.alloc(size);
      const read = readSync(fd, buffer, 0, size, 0);
      return buffer.toString('utf8', 0, read);
    });
  } catch (error) {
    return unreadable(what, codeOf(error), findings, file);
  }
}

/** The SHA-256 of a regular file's content, read in pieces without blocking; what keeps it from being read, otherwise. */
function contentDigest(file: string): string {
  try {
    return withRegularFile(file, (fd) => {
      const hash = createHash('sha256');
      const buffer = Buffer.alloc(64 * 1024);
      for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) hash.update(buffer.subarray(0, read));
      return hash.digest('hex');
    });
  } catch (error) {
    return codeOf(error);
  }
}

/** `work` on a regular file opened without blocking and without becoming a controlling terminal; anything else throws, with a code. */
function withRegularFile<T>(file: string, work: (fd: number, size: number) => T): T {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'not a regular file' });
    return work(fd, stats.size);
  } finally {
    closeSync(fd);
  }
}

function unreadable(what: string, why: string, findings: CodeFinding[], place?: string): undefined {
  findings.push({ what: `${what}: ${why}`, identity: `${place ?? what}: ${why}` });
  return undefined;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'unreadable';
}
