import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hooksPathFolders } from './hooks-path-folders.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function repository(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'toolgate-hooks-path-'));
  made.push(folder);
  execFileSync('git', ['init', '-q'], { cwd: folder });
  return folder;
}

const config = (repo: string, ...args: string[]): void => {
  execFileSync('git', ['config', ...args], { cwd: repo });
};

describe('hooksPathFolders', () => {
  it('names nothing without a .git, or when nothing sets core.hooksPath', () => {
    const plain = mkdtempSync(path.join(tmpdir(), 'toolgate-hooks-path-'));
    made.push(plain);
    expect(hooksPathFolders(plain)).toEqual([]);
    expect(hooksPathFolders(repository())).toEqual([]);
  });

  it('takes a relative folder from the top of the work tree, as husky sets it, and ~ from the home', () => {
    const repo = repository();
    config(repo, 'core.hooksPath', '.husky/_');
    expect(hooksPathFolders(repo)).toEqual([path.join(repo, '.husky', '_')]);
    config(repo, 'core.hooksPath', '~/githooks');
    expect(hooksPathFolders(repo)).toEqual([path.join(homedir(), 'githooks')]);
  });

  it('reads a file the configuration includes, in any case of the key, and every value set', () => {
    const repo = repository();
    writeFileSync(path.join(repo, 'shared.gitconfig'), '[CORE]\n\tHOOKSPATH = "tools/hooks"\n');
    config(repo, 'include.path', '../shared.gitconfig');
    config(repo, '--add', 'core.hooksPath', '/opt/hooks');
    expect(hooksPathFolders(repo).sort()).toEqual(['/opt/hooks', path.join(repo, 'tools', 'hooks')].sort());
  });
});
