import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findProgram } from './find-program.js';
import { createGitlinkGuard, type GitlinkGuard } from './guard-gitlinks.js';

const realGit = findProgram('git', ['/usr/bin', '/bin']) as string;
const made: string[] = [];

afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A repository with one commit, a git that logs each of its runs, and the guard over them. */
function repository(): { workspace: string; guard: GitlinkGuard; git: (...args: string[]) => string; runs: () => string[] } {
  const workspace = mkdtempSync(path.join(tmpdir(), 'toolgate-gitlinks-'));
  made.push(workspace);
  const git = (...args: string[]): string => execFileSync(realGit, args, { cwd: workspace, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: workspace } });
  git('init', '-q');
  git('-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-q', '--allow-empty', '-m', 'first');
  const log = path.join(workspace, '..', `${path.basename(workspace)}.runs`);
  made.push(log);
  writeFileSync(log, '');
  const logging = path.join(workspace, '..', `${path.basename(workspace)}.git`);
  made.push(logging);
  writeFileSync(logging, `#!/bin/sh\necho "$1" >> '${log}'\nexec '${realGit}' "$@"\n`);
  chmodSync(logging, 0o755);
  const guard = createGitlinkGuard({ workspace, git: logging, env: { PATH: '/usr/bin:/bin', HOME: workspace } });
  return { workspace, guard, git, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

const head = (git: (...args: string[]) => string): string => git('rev-parse', 'HEAD').trim();

describe('createGitlinkGuard', () => {
  it('takes out of the index the submodule entries a command added, and names them', async () => {
    const { guard, git } = repository();
    const before = await guard.before();
    expect(before?.paths.size).toBe(0);
    git('update-index', '--add', '--cacheinfo', `160000,${head(git)},sub`);
    git('update-index', '--add', '--cacheinfo', `160000,${head(git)},deep/a b ü`);
    expect(await guard.after(before as NonNullable<typeof before>)).toEqual(['deep/a b ü', 'sub']);
    expect(git('ls-files', '--stage')).toBe('');
  });

  it('takes them out past an index.lock the command left behind', async () => {
    const { workspace, guard, git } = repository();
    const before = await guard.before();
    git('update-index', '--add', '--cacheinfo', `160000,${head(git)},sub`);
    writeFileSync(path.join(workspace, '.git', 'index.lock'), '');
    expect(await guard.after(before as NonNullable<typeof before>)).toEqual(['sub']);
    expect(git('ls-files', '--stage')).toBe('');
    expect(readdirSync(path.join(workspace, '.git')).filter((name) => name.startsWith('index'))).toEqual(['index', 'index.lock']);
  });

  it('leaves the entries that were there before, a new commit of one included, and files the command added', async () => {
    const { workspace, guard, git } = repository();
    git('update-index', '--add', '--cacheinfo', `160000,${head(git)},lib`);
    const before = await guard.before();
    expect([...(before?.paths ?? [])]).toEqual(['lib']);
    git('-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-q', '--allow-empty', '-m', 'second');
    git('update-index', '--cacheinfo', `160000,${head(git)},lib`);
    writeFileSync(path.join(workspace, 'notes.md'), 'notes\n');
    git('add', 'notes.md');
    expect(await guard.after(before as NonNullable<typeof before>)).toEqual([]);
    expect(git('ls-files', '--stage')).toContain(`160000 ${head(git)} 0\tlib`);
    expect(git('ls-files')).toContain('notes.md');
  });

  it('lists the index only when the file changed: a command that never touched it costs no git', async () => {
    const { guard, git, runs } = repository();
    const first = await guard.before();
    expect(runs()).toEqual(['ls-files']);
    expect(await guard.after(first as NonNullable<typeof first>)).toEqual([]);
    const second = await guard.before();
    expect(await guard.after(second as NonNullable<typeof second>)).toEqual([]);
    expect(runs()).toEqual(['ls-files']);
    git('update-index', '--add', '--cacheinfo', `160000,${head(git)},sub`);
    expect(await guard.after(second as NonNullable<typeof second>)).toEqual(['sub']);
    expect(runs()).toEqual(['ls-files', 'ls-files', 'update-index']);
  });

  it('reads no index as one without entries, and an index git cannot read as unknown', async () => {
    const { workspace, guard } = repository();
    rmSync(path.join(workspace, '.git', 'index'), { force: true });
    expect((await guard.before())?.paths.size).toBe(0);
    writeFileSync(path.join(workspace, '.git', 'index'), 'not an index');
    expect(await guard.before()).toBeUndefined();
  });
});
