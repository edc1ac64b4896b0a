import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfigList } from './neutral-git-config.js';
import { readRepositoryCode } from './read-repository-code.js';

/** Settings as git itself reads them, from the text. */
const readConfig = async (text: string) => {
  try {
    return parseConfigList(execFileSync('git', ['config', '--file', '-', '--no-includes', '--list', '--null'], { input: text, encoding: 'utf8', cwd: '/', stdio: 'pipe' }));
  } catch {
    return undefined;
  }
};

describe("readRepositoryCode: what git entering a repository may run", () => {
  let base = '';
  const repository = (folder: string): string => {
    execFileSync('git', ['init', '-q', folder]);
    return path.join(folder, '.git');
  };
  const read = (entry: string, held?: string) => readRepositoryCode(entry, { readConfig, heldGitDir: held, workspace: base });
  const whats = async (entry: string, held?: string): Promise<string[]> => (await read(entry, held)).map((finding) => finding.what);

  beforeEach(() => {
    base = mkdtempSync(path.join(tmpdir(), 'toolgate-repository-code-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('a repository as git init and git remote leave it holds nothing; its .sample hooks are not hooks', async () => {
    const entry = repository(path.join(base, 'plain'));
    execFileSync('git', ['-C', path.join(base, 'plain'), 'remote', 'add', 'origin', 'https://example.com/a.git']);
    writeFileSync(path.join(entry, 'hooks', 'pre-commit.sample'), '#!/bin/sh\n');
    expect(await whats(entry)).toEqual([]);
  });

  it('names each setting that is not neutral and each hook, never a value; a value or content changed is another finding', async () => {
    const entry = repository(path.join(base, 'planted'));
    appendFileSync(path.join(entry, 'config'), '[core]\n\tfsmonitor = "touch pwned"\n[include]\n\tpath = ../other\n[http]\n\textraHeader = Authorization: Bearer secret-token\n');
    writeFileSync(path.join(entry, 'hooks', 'post-checkout'), '#!/bin/sh\ntouch pwned\n', { mode: 0o755 });
    const findings = await read(entry);
    expect(findings.map((finding) => finding.what)).toEqual(['config: core.fsmonitor', 'config: include.path', 'config: http.extraheader', 'hooks/post-checkout']);
    expect(JSON.stringify(findings)).not.toContain('secret-token');
    writeFileSync(path.join(entry, 'hooks', 'post-checkout'), '#!/bin/sh\ntouch other\n');
    const again = await read(entry);
    expect(again.map((finding) => finding.what)).toEqual(findings.map((finding) => finding.what));
    expect(again[3]?.identity).not.toBe(findings[3]?.identity);
    expect(again.slice(0, 3)).toEqual(findings.slice(0, 3));
  });

  it('reads config.worktree, and what commondir names: the configuration and hooks git reads there', async () => {
    const entry = repository(path.join(base, 'wt'));
    writeFileSync(path.join(entry, 'config.worktree'), '[core]\n\tfsmonitor = x\n');
    const common = repository(path.join(base, 'common'));
    appendFileSync(path.join(common, 'config'), '[core]\n\tpager = x\n');
    writeFileSync(path.join(common, 'hooks', 'pre-commit'), 'x');
    writeFileSync(path.join(entry, 'commondir'), '../../common/.git\n');
    expect(await whats(entry)).toEqual(['commondir config: core.pager', 'commondir hooks/pre-commit', 'config.worktree: core.fsmonitor']);
  });

  it('follows a .git file and a .git link to the git folder they name, joining a relative path as text first, as git does', async () => {
    const planted = repository(path.join(base, 'planted'));
    appendFileSync(path.join(planted, 'config'), '[core]\n\tfsmonitor = x\n');
    mkdirSync(path.join(base, 'deep', 'inner'), { recursive: true });
    mkdirSync(path.join(base, 'work'));
    cpSync(planted, path.join(base, 'deep', 'g'), { recursive: true });
    cpSync(repository(path.join(base, 'plain')), path.join(base, 'work', 'g'), { recursive: true });
    symlinkSync(path.join(base, 'deep', 'inner'), path.join(base, 'work', 'trick'));
    // `trick/../g` is deep/g to git, which resolves the link before the `..`; resolved as text first it would be work/g, a decoy.
    writeFileSync(path.join(base, 'work', 'gitfile'), 'gitdir: trick/../g\r\n\n');
    expect(await whats(path.join(base, 'work', 'g'))).toEqual([]);
    expect(await whats(path.join(base, 'work', 'gitfile'))).toEqual(['config: core.fsmonitor']);
    symlinkSync(planted, path.join(base, 'link'));
    expect(await whats(path.join(base, 'link'))).toEqual(['config: core.fsmonitor']);
  });

  it('a .git git cannot read as it stands is a finding; a link leading nowhere is not, until its target is made', async () => {
    writeFileSync(path.join(base, 'bad'), 'not a gitdir line\n');
    writeFileSync(path.join(base, 'long'), `gitdir: ${'a'.repeat(5000)}\n`);
    writeFileSync(path.join(base, 'nowhere'), 'gitdir: missing\n');
    writeFileSync(path.join(base, 'unparsed'), 'gitdir: broken/.git\n');
    const broken = repository(path.join(base, 'broken'));
    writeFileSync(path.join(broken, 'config'), '[core\n');
    symlinkSync(path.join(base, 'later'), path.join(base, 'dangling'));
    expect(await whats(path.join(base, 'bad'))).toEqual(['.git: not a gitdir line']);
    expect(await whats(path.join(base, 'long'))).toEqual(['.git: too long to read']);
    expect(await whats(path.join(base, 'nowhere'))).toEqual(['gitdir: ENOENT']);
    expect(await whats(path.join(base, 'unparsed'))).toEqual(['config: git cannot read it']);
    expect(await whats(path.join(base, 'dangling'))).toEqual([]);
    appendFileSync(path.join(repository(path.join(base, 'made')), 'config'), '[core]\n\tfsmonitor = x\n');
    rmSync(path.join(base, 'dangling'));
    symlinkSync(path.join(base, 'made', '.git'), path.join(base, 'dangling'));
    expect(await whats(path.join(base, 'dangling'))).toEqual(['config: core.fsmonitor']);
  });

  it("the workspace's own git folder, held read-only, is not read: a linked worktree shares its configuration and hooks", async () => {
    const own = repository(path.join(base, 'own'));
    appendFileSync(path.join(own, 'config'), '[core]\n\thooksPath = .githooks\n');
    execFileSync('git', ['-C', path.join(base, 'own'), '-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-q', '--allow-empty', '-m', 'a']);
    execFileSync('git', ['-C', path.join(base, 'own'), 'worktree', 'add', '-q', 'wt']);
    const entry = path.join(base, 'own', 'wt', '.git');
    expect(await whats(entry, own)).toEqual([]);
    expect(await whats(entry)).toEqual(['commondir config: core.hookspath']);
  });

  it('reads what a hooks folder, an include and a submodule\'s git folder hold, and core.worktree naming a work tree in the workspace is neutral', async () => {
    const entry = repository(path.join(base, 'clone'));
    execFileSync('git', ['config', '--file', path.join(entry, 'config'), 'core.hooksPath', '.husky']);
    execFileSync('git', ['config', '--file', path.join(entry, 'config'), 'include.path', '../.gitconfig']);
    const shared = await whats(entry);
    expect(shared).toEqual(['config: core.hookspath', 'config: include.path']);
    mkdirSync(path.join(base, 'clone', '.husky'));
    writeFileSync(path.join(base, 'clone', '.husky', 'post-checkout'), 'x');
    writeFileSync(path.join(base, 'clone', '.gitconfig'), '[core]\n\tfsmonitor = x\n[include]\n\tpath = deeper.cfg\n');
    writeFileSync(path.join(base, 'clone', 'deeper.cfg'), '[core]\n\tpager = x\n');
    const module = path.join(entry, 'modules', 'libs', 'sub');
    mkdirSync(path.dirname(module), { recursive: true });
    cpSync(repository(path.join(base, 'upstream')), module, { recursive: true });
    mkdirSync(path.join(base, 'clone', 'libs', 'sub'), { recursive: true });
    execFileSync('git', ['config', '--file', path.join(module, 'config'), 'core.worktree', '../../../../libs/sub']);
    writeFileSync(path.join(module, 'hooks', 'post-checkout'), 'x');
    expect(await whats(entry)).toEqual([
      'config: core.hookspath',
      'config: include.path',
      'config: include.path ../.gitconfig: core.fsmonitor',
      'config: include.path ../.gitconfig: include.path',
      'config: include.path ../.gitconfig: include.path deeper.cfg: core.pager',
      'config: core.hookspath/post-checkout',
      'modules/libs/sub hooks/post-checkout',
    ]);
    // A core.worktree in another of its files moves where git runs that hooks folder from: read there too.
    mkdirSync(path.join(base, 'other', '.husky'), { recursive: true });
    writeFileSync(path.join(base, 'other', '.husky', 'post-merge'), 'x');
    writeFileSync(path.join(entry, 'config.worktree'), `[core]\n\tworktree = ${path.join(base, 'other')}\n`);
    expect(await whats(entry)).toContain('config: core.hookspath/post-merge');
    // A submodule's work tree in a git folder is not neutral: its checkout would write there.
    execFileSync('git', ['config', '--file', path.join(module, 'config'), 'core.worktree', '../../../hooks']);
    expect(await whats(entry)).toContain('modules/libs/sub config: core.worktree');
  });

  it('reads a FIFO or a device where git reads a file as a finding, without waiting for a writer', async () => {
    const entry = repository(path.join(base, 'jam'));
    execFileSync('mkfifo', [path.join(entry, 'hooks', 'post-checkout')]);
    execFileSync('mkfifo', [path.join(entry, 'config.worktree')]);
    const findings = await read(entry);
    expect(findings.map((finding) => finding.what)).toEqual(['config.worktree: not a regular file', 'hooks/post-checkout']);
    expect(findings[1]?.identity).toMatch(/ not a regular file$/);
  });

  it('a linked worktree of a repository holds the same findings, read where they are: a worktree is no new code', async () => {
    const clone = path.join(base, 'clone');
    const entry = repository(clone);
    writeFileSync(path.join(entry, 'hooks', 'pre-push'), 'git lfs pre-push "$@"\n');
    execFileSync('git', ['-C', clone, '-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-q', '--allow-empty', '-m', 'a']);
    execFileSync('git', ['-C', clone, 'worktree', 'add', '-q', '../wt']);
    const identities = async (at: string) => (await read(at)).map((finding) => finding.identity);
    expect(await identities(path.join(base, 'wt', '.git'))).toEqual(await identities(entry));
    expect(await whats(path.join(base, 'wt', '.git'))).toEqual(['commondir hooks/pre-push']);
  });
});
