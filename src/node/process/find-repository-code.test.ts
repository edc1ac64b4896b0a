import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
    expect(findRepositoryCode(repo)).toEqual({ gitDir, readOnly: [path.join(gitDir, 'hooks'), path.join(gitDir, 'config')] });
    writeFileSync(path.join(gitDir, 'config.worktree'), '');
    expect(findRepositoryCode(repo)?.readOnly).toContain(path.join(gitDir, 'config.worktree'));
  });

  it('makes a missing hooks folder, which a command could otherwise create and fill', () => {
    const repo = workspace();
    mkdirSync(path.join(repo, '.git'));
    expect(findRepositoryCode(repo)?.readOnly).toEqual([path.join(repo, '.git', 'hooks')]);
    expect(existsSync(path.join(repo, '.git', 'hooks'))).toBe(true);
  });

  it('holds a hooks folder that is a link where it leads', () => {
    const repo = workspace();
    mkdirSync(path.join(repo, '.git'));
    mkdirSync(path.join(repo, '.githooks'));
    symlinkSync('../.githooks', path.join(repo, '.git', 'hooks'));
    expect(findRepositoryCode(repo)?.readOnly).toEqual([path.join(repo, '.githooks')]);
  });
});
