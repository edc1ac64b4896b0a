import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { makeWorkspace } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

// A repository that ships what the gateway will write: the journal where the operator's (untracked) configuration
// keeps it, or files in `.toolgate/`. The gateway would answer calls from receipts the repository's author wrote,
// and write every call's arguments and results where the user's next `git commit -a` carries them into the
// repository. The start is refused; each case here was one the check did not see: git, asked of the workspace's
// repository by the name as spelt, listed nothing through a link on the way or inside a submodule, and read a
// listing longer than its answer could hold as no answer at all.

const outsideFolder = useAttackHomes('toolgate-attack-tracked-journal');
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], { cwd, encoding: 'utf8' });
const CONFIG = { scope: 'workspace-write', mode: 'auto' };
const readNotes = (workspace: string) => runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace);

/** `files` committed in a new repository at `workspace`, as it came; `links` are committed too (name: where it leads). */
function commit(workspace: string, files: readonly string[], links: Record<string, string> = {}): void {
  for (const [name, target] of Object.entries(links)) symlinkSync(target, join(workspace, name));
  git(workspace, 'init', '-q');
  git(workspace, 'add', ...files, ...Object.keys(links));
  git(workspace, 'commit', '-qm', 'the repository as it came');
}

describe('attack: a repository that ships the journal the configuration names, past the tracked-journal check', () => {
  it('a tracked link on the way into a tracked folder (audit -> docs, docs/journal.db tracked): the start is refused', async () => {
    const workspace = makeWorkspace({ ...CONFIG, journal: { path: 'audit/journal.db' } }, { 'notes.md': 'notes\n', 'docs/journal.db': '' });
    commit(workspace, ['notes.md', 'docs/journal.db'], { audit: 'docs' });
    const called = await readNotes(workspace);
    expect(called.code, called.stdout).toBe(2);
    expect(called.stderr).toContain('a link on the way to the journal');
    expect(called.stderr).toContain('git rm --cached audit');
    // The journal would have been written into docs/journal.db, for the next `git commit -a`.
    expect(git(workspace, 'status', '--porcelain', '--untracked-files=no')).toBe('');
  }, 30_000);

  it('a tracked link on the way to a folder outside the repository: the start is refused, and nothing is written there', async () => {
    const elsewhere = outsideFolder();
    const workspace = makeWorkspace({ ...CONFIG, journal: { path: 'audit/journal.db' } }, { 'notes.md': 'notes\n' });
    commit(workspace, ['notes.md'], { audit: elsewhere });
    const called = await readNotes(workspace);
    expect(called.code, called.stdout).toBe(2);
    expect(called.stderr).toContain('a link on the way to the journal');
    expect(existsSync(join(elsewhere, 'journal.db'))).toBe(false);
  }, 30_000);

  it('a submodule that tracks journal.db where journal.path puts it: the start is refused, naming the submodule', async () => {
    const upstream = outsideFolder();
    writeFileSync(join(upstream, 'journal.db'), '');
    commit(upstream, ['journal.db']);
    const workspace = makeWorkspace({ ...CONFIG, journal: { path: 'vendor/state/journal.db' } }, { 'notes.md': 'notes\n' });
    git(workspace, 'init', '-q');
    git(workspace, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream, 'vendor/state');
    git(workspace, 'add', 'notes.md');
    git(workspace, 'commit', '-qm', 'the repository as it came');
    const called = await readNotes(workspace);
    expect(called.code, called.stdout).toBe(2);
    expect(called.stderr).toContain(`git -C ${realpathSync(join(workspace, 'vendor/state'))} rm --cached journal.db`);
    expect(git(join(workspace, 'vendor/state'), 'status', '--porcelain', '--untracked-files=no')).toBe('');
  }, 30_000);

  it('held: a journal in audit[1]/ is that folder, not audit1/ that git would read the glob as, and the gateway starts', async () => {
    const workspace = makeWorkspace({ ...CONFIG, journal: { path: 'audit[1]/journal.db' } }, { 'notes.md': 'notes\n', 'audit1/journal.db': '' });
    commit(workspace, ['notes.md', 'audit1/journal.db']);
    // Where git reads names without case, every name a glob pathspec listed counted: the start was refused.
    git(workspace, 'config', 'core.ignorecase', 'true');
    const called = await readNotes(workspace);
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain('notes');
  }, 30_000);
});

describe('attack: a repository that tracks more files in .toolgate/ than git’s answer to the check holds', () => {
  it('5,000 long names and a .gitignore that ignores nothing: the start is refused, and nothing of the gateway’s is there to commit', async () => {
    const files: Record<string, string> = { 'notes.md': 'notes\n', '.toolgate/.gitignore': '!*\n' };
    for (let index = 0; index < 5000; index += 1) files[`.toolgate/${'k'.repeat(200)}${String(index)}`] = '';
    const workspace = makeWorkspace(CONFIG, files);
    commit(workspace, ['notes.md', '.toolgate']);
    const called = await readNotes(workspace);
    expect(called.code, called.stdout).toBe(2);
    expect(called.stderr).toContain('git rm -r --cached');
    // The journal and its anchor would have been written beside the shipped files, all of it staged by `git add -A`.
    expect(git(workspace, 'status', '--porcelain')).not.toContain('.toolgate/');
  }, 60_000);
});

describe('attack: a repository whose git never answers the check', () => {
  it('an index that is a named pipe (git waits on it for good): the start is refused, not taken for "nothing tracked"', async () => {
    const workspace = makeWorkspace(CONFIG, { 'notes.md': 'notes\n', '.toolgate/.gitignore': '!*\n', '.toolgate/journal.db': '' });
    commit(workspace, ['notes.md', '.toolgate']);
    // A workspace unpacked from an archive can hold any kind of file under .git; git opens its index and waits for a writer.
    rmSync(join(workspace, '.git/index'));
    execFileSync('mkfifo', [join(workspace, '.git/index')]);
    const started = Date.now();
    const called = await readNotes(workspace);
    expect(called.code, called.stdout).toBe(2);
    expect(called.stderr).toContain('git did not answer');
    expect(called.stdout).not.toContain('notes');
    // One wait for git, not one for each file the checks ask about.
    expect(Date.now() - started).toBeLessThan(25_000);
  }, 40_000);

  it('an index cut short (git ls-files fails inside the repository): the start is refused too', async () => {
    const workspace = makeWorkspace(CONFIG, { 'notes.md': 'notes\n', '.toolgate/.gitignore': '!*\n', '.toolgate/journal.db': '' });
    commit(workspace, ['notes.md', '.toolgate']);
    writeFileSync(join(workspace, '.git/index'), 'DIRC');
    const called = await readNotes(workspace);
    expect(called.code, called.stdout).toBe(2);
    expect(called.stderr).toContain('git could not read what the repository there tracks');
  }, 30_000);

  it('held: a workspace that is no repository, with git there, starts', async () => {
    const workspace = makeWorkspace(CONFIG, { 'notes.md': 'notes\n' });
    const called = await readNotes(workspace);
    expect(called.code, called.stderr).toBe(0);
    expect(called.stdout).toContain('notes');
  }, 30_000);
});
