import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findRepositoryCode } from './find-repository-code.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function workspace(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'toolgate-repository-code-'));
  made.push(folder);
  return folder;
}

describe('findRepositoryCode', () => {
  it('finds nothing without a .git folder, or where .git is a file naming a repository elsewhere', () => {
    const plain = workspace();
    expect(findRepositoryCode(plain)).toBeUndefined();
    const worktree = workspace();
    writeFileSync(path.join(worktree, '.git'), 'gitdir: /elsewhere/.git/worktrees/w\n');
    expect(findRepositoryCode(worktree)).toBeUndefined();
  });

  it('holds the hooks folder and each configuration file that exists', () => {
    const repo = workspace();
    mkdirSync(path.join(repo, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(repo, '.git', 'config'), '[core]\n');
    const gitDir = path.join(repo, '.git');
    expect(findRepositoryCode(repo)).toEqual({ folders: [gitDir], readOnly: ['hooks', 'config', 'config.worktree', 'commondir', 'modules'].map((name) => path.join(gitDir, name)) });
  });

  it('places an empty config.worktree, which git reads once the user sets extensions.worktreeConfig, and keeps one that is there', () => {
    const repo = workspace();
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const worktreeConfig = path.join(repo, '.git', 'config.worktree');
    expect(findRepositoryCode(repo)?.readOnly).toContain(worktreeConfig);
    expect(readFileSync(worktreeConfig, 'utf8')).toBe('');
    execFileSync('git', ['config', 'extensions.worktreeConfig', 'true'], { cwd: repo });
    execFileSync('git', ['config', '--worktree', 'x.y', 'mine'], { cwd: repo });
    expect(execFileSync('git', ['config', 'x.y'], { cwd: repo, encoding: 'utf8' }).trim()).toBe('mine');
    expect(findRepositoryCode(repo)?.readOnly).toContain(worktreeConfig);
    expect(readFileSync(worktreeConfig, 'utf8')).toContain('mine');
  });

  it('makes a missing hooks or modules folder, which a command could otherwise create and fill', () => {
    const repo = workspace();
    mkdirSync(path.join(repo, '.git'));
    expect(findRepositoryCode(repo)?.readOnly).toEqual(['hooks', 'config.worktree', 'commondir', 'modules'].map((name) => path.join(repo, '.git', name)));
    expect(existsSync(path.join(repo, '.git', 'hooks'))).toBe(true);
    expect(existsSync(path.join(repo, '.git', 'modules'))).toBe(true);
  });

  it('places a commondir naming .git itself, which a command could otherwise write to name a folder of its own, and keeps one that is there', () => {
    const repo = workspace();
    mkdirSync(path.join(repo, '.git'));
    const commonDir = path.join(repo, '.git', 'commondir');
    expect(findRepositoryCode(repo)?.readOnly).toContain(commonDir);
    expect(readFileSync(commonDir, 'utf8')).toBe('.\n');
    // The user's git reads the repository it read before: its own config, its own hooks.
    execFileSync('git', ['init', '-q'], { cwd: repo });
    execFileSync('git', ['config', 'x.y', 'mine'], { cwd: repo });
    expect(execFileSync('git', ['rev-parse', '--git-common-dir'], { cwd: repo, encoding: 'utf8' }).trim()).toBe(path.join(realpathSync(repo), '.git'));
    expect(readFileSync(path.join(repo, '.git', 'config'), 'utf8')).toContain('mine');
    writeFileSync(commonDir, '../elsewhere\n');
    expect(findRepositoryCode(repo)?.readOnly).toContain(commonDir);
    expect(readFileSync(commonDir, 'utf8')).toBe('../elsewhere\n');
  });

  it('holds a hooks folder that is a link where it leads', () => {
    const repo = workspace();
    mkdirSync(path.join(repo, '.git'));
    mkdirSync(path.join(repo, '.githooks'));
    symlinkSync('../.githooks', path.join(repo, '.git', 'hooks'));
    expect(findRepositoryCode(repo)?.readOnly).toEqual([path.join(repo, '.githooks'), ...['config.worktree', 'commondir', 'modules'].map((name) => path.join(repo, '.git', name))]);
  });

  it('holds where a hook that is a link leads, the work tree included; a plain hook, and a link that leads nowhere, add nothing', () => {
    const repo = realpathSync(workspace());
    const hooks = path.join(repo, '.git', 'hooks');
    mkdirSync(hooks, { recursive: true });
    mkdirSync(path.join(repo, 'tools', 'hooks'), { recursive: true });
    writeFileSync(path.join(repo, 'tools', 'hooks', 'pre-commit'), '#!/bin/sh\n');
    symlinkSync('../../tools/hooks/pre-commit', path.join(hooks, 'pre-commit'));
    writeFileSync(path.join(hooks, 'pre-push'), '#!/bin/sh\n');
    symlinkSync('../../tools/hooks/missing', path.join(hooks, 'post-checkout'));
    expect(findRepositoryCode(repo)?.readOnly).toEqual([hooks, path.join(repo, 'tools', 'hooks', 'pre-commit'), ...['config.worktree', 'commondir', 'modules'].map((name) => path.join(repo, '.git', name))]);
  });

  it('holds the hooks folder core.hooksPath names in the work tree, where it leads; one not made yet adds nothing', () => {
    const repo = realpathSync(workspace());
    execFileSync('git', ['init', '-q'], { cwd: repo });
    execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: repo });
    expect(findRepositoryCode(repo)?.readOnly).not.toContain(path.join(repo, '.husky'));
    mkdirSync(path.join(repo, 'tools', 'hooks'), { recursive: true });
    symlinkSync('tools/hooks', path.join(repo, '.husky'));
    expect(findRepositoryCode(repo)?.readOnly).toContain(path.join(repo, 'tools', 'hooks'));
  });

  it('holds a configuration file of the work tree an include names, once it exists', () => {
    const repo = realpathSync(workspace());
    execFileSync('git', ['init', '-q'], { cwd: repo });
    execFileSync('git', ['config', 'include.path', '../shared.gitconfig'], { cwd: repo });
    expect(findRepositoryCode(repo)?.readOnly).not.toContain(path.join(repo, 'shared.gitconfig'));
    writeFileSync(path.join(repo, 'shared.gitconfig'), '[pull]\n\trebase = true\n');
    expect(findRepositoryCode(repo)?.readOnly).toContain(path.join(repo, 'shared.gitconfig'));
  });

  it('in a package of a monorepo, with no .git of its own, holds the hooks folder the repository above names in it', () => {
    const repo = realpathSync(workspace());
    execFileSync('git', ['init', '-q'], { cwd: repo });
    execFileSync('git', ['config', 'core.hooksPath', 'frontend/.husky'], { cwd: repo });
    const frontend = path.join(repo, 'frontend');
    mkdirSync(frontend);
    expect(findRepositoryCode(frontend)).toBeUndefined();
    mkdirSync(path.join(frontend, '.husky'));
    expect(findRepositoryCode(frontend)).toEqual({ folders: [], readOnly: [path.join(frontend, '.husky')] });
  });

  it('in a linked worktree, whose .git is a file, holds its work tree\'s hooks folder alone', () => {
    const main = realpathSync(workspace());
    execFileSync('git', ['init', '-q'], { cwd: main });
    execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: main });
    execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', 'commit', '-q', '--allow-empty', '-m', 'first'], { cwd: main });
    const worktree = `${main}-worktree`;
    made.push(worktree);
    execFileSync('git', ['worktree', 'add', '-q', worktree], { cwd: main });
    expect(findRepositoryCode(worktree)).toBeUndefined();
    mkdirSync(path.join(worktree, '.husky'));
    expect(findRepositoryCode(worktree)).toEqual({ folders: [], readOnly: [path.join(worktree, '.husky')] });
  });
});
