import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { isNeutralSetting, type ConfigEntry } from './neutral-git-config.js';

/** Something in a repository that git entering it may run, or that keeps git from reading it as it stands. */
export interface CodeFinding {
  /** What it is, for a person: `config: core.fsmonitor`, `hooks/post-checkout`. Never a value, which may be a secret. */
  readonly what: string;
  /** What it is exactly: `what` and a digest of its value or content, so that a value changed is another finding. */
  readonly identity: string;
}

/** A configuration file's settings as git reads them; undefined when git cannot read the file. */
export type ReadConfig = (text: string) => Promise<readonly ConfigEntry[] | undefined>;

/** A `.git` file longer than this is no gitdir line git would read. */
const MAX_GITFILE_BYTES = 4096;

/**
 * Everything in the repository whose `.git` is `entry` (a folder, a gitdir
 * file, or a link to either) that git, entering it as a submodule (`git
 * status`, `git diff`, `git submodule update`), may run: each setting of its
 * configuration that is not neutral (`isNeutralSetting`), in `config` and in
 * `config.worktree`, and each hook (every entry of `hooks` but git's
 * `.sample` files), in the git folder and in the common folder its
 * `commondir` names. A `.git` git cannot read as it stands (a malformed
 * gitdir file, a link leading nowhere, a file the host cannot read) is a
 * finding too: what it would become is not known. The workspace's own git
 * folder (`heldGitDir`), whose configuration and hooks the sandbox holds
 * read-only, is the user's and is not read: a linked worktree of the
 * workspace's repository shares them.
 */
export async function readRepositoryCode(entry: string, readConfig: ReadConfig, heldGitDir: string | undefined): Promise<CodeFinding[]> {
  const findings: CodeFinding[] = [];
  const gitDir = gitDirOf(entry, findings);
  if (gitDir === undefined) return findings;
  const commonDir = commonDirOf(gitDir, findings);
  const folders = commonDir === undefined || commonDir === gitDir ? [gitDir] : [commonDir, gitDir];
  for (const folder of folders) {
    if (folder === heldGitDir) continue;
    const label = folder === gitDir ? '' : 'commondir ';
    if (folder === folders[0]) await configFindings(path.join(folder, 'config'), `${label}config`, readConfig, findings);
    await configFindings(path.join(folder, 'config.worktree'), `${label}config.worktree`, readConfig, findings);
    hookFindings(path.join(folder, 'hooks'), `${label}hooks`, findings);
  }
  return findings;
}

/** The git folder `entry` leads to; undefined, with a finding, when git could not read one there. */
function gitDirOf(entry: string, findings: CodeFinding[]): string | undefined {
  const stats = statOf(entry, '.git', findings);
  if (stats === 'absent' || stats === 'unreadable') return undefined;
  if (stats.isDirectory()) return realOf(entry, '.git', findings);
  if (!stats.isFile()) return unreadable('.git', 'neither a folder nor a file', findings);
  if (stats.size > MAX_GITFILE_BYTES) return unreadable('.git', 'longer than a gitdir line', findings);
  const text = readText(entry, '.git', findings);
  if (text === undefined) return undefined;
  // As git reads one: `gitdir: ` and a path, every line break at its end dropped.
  const gitDir = text.replace(/[\r\n]+$/, '');
  if (!gitDir.startsWith('gitdir: ')) return unreadable('.git', 'not a gitdir line', findings);
  return joinedReal(path.dirname(entry), gitDir.slice('gitdir: '.length), 'gitdir', findings);
}

/** The folder `commondir` names (where git reads the configuration and hooks from), or the git folder itself. */
function commonDirOf(gitDir: string, findings: CodeFinding[]): string | undefined {
  const file = path.join(gitDir, 'commondir');
  const stats = statOf(file, 'commondir', findings);
  if (stats === 'absent') return gitDir;
  if (stats === 'unreadable') return undefined;
  const text = readText(file, 'commondir', findings);
  if (text === undefined) return undefined;
  return joinedReal(gitDir, text.replace(/[\r\n]+$/, ''), 'commondir', findings);
}

/**
 * The real path of `named` from `folder`, as git finds it: joined as text and
 * then resolved by the file system, so `link/../g` is the parent of where
 * `link` leads, not `g` beside `link` (which resolving the text first would give).
 */
function joinedReal(folder: string, named: string, what: string, findings: CodeFinding[]): string | undefined {
  return realOf(path.isAbsolute(named) ? named : `${folder}/${named}`, what, findings);
}

async function configFindings(file: string, what: string, readConfig: ReadConfig, findings: CodeFinding[]): Promise<void> {
  if (typeof statOf(file, what, findings) === 'string') return;
  const text = readText(file, what, findings);
  if (text === undefined) return;
  const entries = await readConfig(text);
  if (entries === undefined) {
    findings.push({ what: `${what}: git cannot read it`, identity: `${what} unreadable ${digest(text)}` });
    return;
  }
  for (const setting of entries) {
    if (!isNeutralSetting(setting)) findings.push({ what: `${what}: ${setting.key}`, identity: `${what}: ${setting.key} ${digest(setting.value ?? '')}` });
  }
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
  for (const name of names.sort()) {
    if (name.endsWith('.sample')) continue;
    const hook = `${what}/${name}`;
    let content: string;
    try {
      content = digest(readFileSync(path.join(folder, name)));
    } catch (error) {
      content = codeOf(error);
    }
    findings.push({ what: hook, identity: `${hook} ${content}` });
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
    unreadable(what, code, findings);
    return 'unreadable';
  }
}

function realOf(place: string, what: string, findings: CodeFinding[]): string | undefined {
  try {
    return realpathSync.native(place);
  } catch (error) {
    return unreadable(what, codeOf(error), findings);
  }
}

function readText(file: string, what: string, findings: CodeFinding[]): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    return unreadable(what, codeOf(error), findings);
  }
}

function unreadable(what: string, why: string, findings: CodeFinding[]): undefined {
  findings.push({ what: `${what}: ${why}`, identity: `${what}: ${why}` });
  return undefined;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? 'unreadable';
}

function digest(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}
