import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { workTreeGitCode } from './work-tree-git-code.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const created = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-work-tree-code-')));
  made.push(created);
  return created;
}

function repository(): string {
  const repo = folder();
  execFileSync('git', ['init', '-q'], { cwd: repo });
  return repo;
}

const config = (repo: string, ...args: string[]): void => {
  execFileSync('git', ['config', ...args], { cwd: repo });
};

describe('workTreeGitCode', () => {
  it('names nothing without a .git, or when nothing names a place', () => {
    expect(workTreeGitCode(folder())).toEqual({ hooksFolders: [], configFiles: [] });
    const repo = repository();
    expect(workTreeGitCode(repo)).toEqual({ hooksFolders: [], configFiles: [] });
  });

  it('takes a relative hooks folder from the top of the work tree, and the folder above husky\'s `_`; one outside the workspace is left out', () => {
    const repo = repository();
    config(repo, 'core.hooksPath', '.githooks');
    expect(workTreeGitCode(repo).hooksFolders).toEqual([path.join(repo, '.githooks')]);
    // husky's own: each hook of `.husky/_` runs the script of its name in `.husky`.
    config(repo, 'core.hooksPath', '.husky/_');
    expect(workTreeGitCode(repo).hooksFolders).toEqual([path.join(repo, '.husky', '_'), path.join(repo, '.husky')]);
    config(repo, 'core.hooksPath', '/dev/null');
    expect(workTreeGitCode(repo).hooksFolders).toEqual([]);
  });

  it('in a package of a monorepo, with no .git of its own, takes the places the repository above names from its top', () => {
    const repo = repository();
    const workspace = path.join(repo, 'frontend');
    mkdirSync(workspace);
    config(repo, 'core.hooksPath', 'frontend/.husky/_');
    config(repo, 'include.path', '../frontend/shared.gitconfig');
    expect(workTreeGitCode(workspace)).toEqual({ hooksFolders: [path.join(workspace, '.husky', '_'), path.join(workspace, '.husky')], configFiles: [path.join(workspace, 'shared.gitconfig')] });
    // A hooks folder of another package is outside the workspace, and left out.
    config(repo, 'core.hooksPath', 'backend/.husky');
    expect(workTreeGitCode(workspace).hooksFolders).toEqual([]);
  });

  it('reads the configuration where the user\'s environment puts it, and the keys it gives, as the user\'s git does', () => {
    const repo = repository();
    const global = path.join(folder(), 'gitconfig');
    writeFileSync(global, '[core]\n\thooksPath = .githooks\n');
    const saved = { GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL, GIT_CONFIG_COUNT: process.env.GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0: process.env.GIT_CONFIG_KEY_0, GIT_CONFIG_VALUE_0: process.env.GIT_CONFIG_VALUE_0 };
    try {
      process.env.GIT_CONFIG_GLOBAL = global;
      expect(workTreeGitCode(repo).hooksFolders).toEqual([path.join(repo, '.githooks')]);
      delete process.env.GIT_CONFIG_GLOBAL;
      Object.assign(process.env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'include.path', GIT_CONFIG_VALUE_0: path.join(repo, 'env.gitconfig') });
      expect(workTreeGitCode(repo).configFiles).toEqual([path.join(repo, 'env.gitconfig')]);
      Object.assign(process.env, { GIT_CONFIG_KEY_0: 'core.hooksPath', GIT_CONFIG_VALUE_0: 'tools/hooks' });
      expect(workTreeGitCode(repo).hooksFolders).toEqual([path.join(repo, 'tools', 'hooks')]);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('names each file an include names, whatever its condition, and reads a hooks folder set there, in any case of the key', () => {
    const repo = repository();
    writeFileSync(path.join(repo, 'shared.gitconfig'), '[CORE]\n\tHOOKSPATH = "tools/hooks"\n');
    config(repo, 'include.path', '../shared.gitconfig');
    config(repo, 'includeIf.onbranch:release.path', '../release.gitconfig');
    const code = workTreeGitCode(repo);
    expect(code.hooksFolders).toEqual([path.join(repo, 'tools', 'hooks')]);
    expect([...code.configFiles].sort()).toEqual([path.join(repo, 'release.gitconfig'), path.join(repo, 'shared.gitconfig')].sort());
  });

  it('answers again from what it read while no file git reads has changed, and reads again after any of them changes', async () => {
    const repo = repository();
    const settled = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 60));
    writeFileSync(path.join(repo, 'shared.gitconfig'), '[core]\n\tbare = false\n');
    writeFileSync(path.join(repo, 'release.gitconfig'), '[core]\n\thooksPath = release-hooks\n');
    config(repo, 'include.path', '../shared.gitconfig');
    config(repo, 'includeIf.onbranch:release.path', '../release.gitconfig');
    await settled();
    expect(workTreeGitCode(repo).hooksFolders).toEqual([]);
    expect(workTreeGitCode(repo).hooksFolders).toEqual([]);
    // An included file changed under the kept answer.
    writeFileSync(path.join(repo, 'shared.gitconfig'), '[core]\n\thooksPath = .githooks\n');
    expect(workTreeGitCode(repo).hooksFolders).toEqual([path.join(repo, '.githooks')]);
    await settled();
    expect(workTreeGitCode(repo).hooksFolders).toEqual([path.join(repo, '.githooks')]);
    // The branch an include's condition names checked out, and nothing else changed: git reads release.gitconfig too.
    execFileSync('git', ['checkout', '-q', '-b', 'release'], { cwd: repo });
    expect(workTreeGitCode(repo).hooksFolders).toEqual([path.join(repo, '.githooks'), path.join(repo, 'release-hooks')]);
    await settled();
    expect(workTreeGitCode(repo).hooksFolders).toEqual([path.join(repo, '.githooks'), path.join(repo, 'release-hooks')]);
    // The user's own configuration, where the environment puts it.
    const home = folder();
    writeFileSync(path.join(home, 'gitconfig'), '[include]\n\tpath = ' + path.join(repo, 'user.gitconfig') + '\n');
    const saved = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = path.join(home, 'gitconfig');
    try {
      expect(workTreeGitCode(repo).configFiles).toContain(path.join(repo, 'user.gitconfig'));
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
    }
    expect(workTreeGitCode(repo).configFiles).not.toContain(path.join(repo, 'user.gitconfig'));
  });

  it('finds an include past a configuration padded beyond what a listing of every key would hold', () => {
    const repo = repository();
    writeFileSync(path.join(repo, '.git', 'config'), `[core]\n${'\tpadding = x\n'.repeat(200_000)}[include]\n\tpath = ../shared.gitconfig\n`);
    expect(workTreeGitCode(repo).configFiles).toEqual([path.join(repo, 'shared.gitconfig')]);
  });

  it('throws when git does not answer, as it waits on an include that is a FIFO: the places are not known', () => {
    const repo = repository();
    execFileSync('mkfifo', [path.join(repo, 'shared.gitconfig')]);
    config(repo, 'include.path', '../shared.gitconfig');
    const started = performance.now();
    expect(() => workTreeGitCode(repo)).toThrow(expect.objectContaining({ code: 'ETIMEDOUT' }) as Error);
    expect(performance.now() - started).toBeLessThan(4000);
  });
});
