import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRepository, repositoryStamp } from './object-store-stamp.js';
import { gitIn as git, useTempFolders } from './__fixtures__/temp-repository.js';

const folder = useTempFolders('toolgate-stamp');

describe('findRepository', () => {
  it('finds the work tree, a linked worktree and a bare repository as git does', () => {
    const top = folder();
    git(top, 'init', '-q');
    git(top, 'commit', '-q', '--allow-empty', '-m', 'first');
    expect(findRepository(path.join(top, 'missing', 'below'))).toEqual({ top, gitDir: path.join(top, '.git'), commonDir: path.join(top, '.git') });
    const linked = path.join(folder(), 'wt');
    git(top, 'worktree', 'add', '-q', linked);
    expect(findRepository(linked)).toEqual({ top: linked, gitDir: path.join(top, '.git', 'worktrees', 'wt'), commonDir: path.join(top, '.git') });
    const bare = path.join(folder(), 'exported.git');
    git(top, 'clone', '-q', '--bare', '.', bare);
    expect(findRepository(bare)).toEqual({ top: bare, gitDir: bare, commonDir: bare });
  });
});

describe('repositoryStamp', () => {
  it('changes with a ref, the index, a reflog and a loose object, and not with a file of the work tree', () => {
    const top = folder();
    git(top, 'init', '-q');
    git(top, 'commit', '-q', '--allow-empty', '-m', 'first');
    const places = findRepository(top);
    if (places === undefined) throw new Error('no repository');
    const stamps = [repositoryStamp(places)];
    writeFileSync(path.join(top, 'notes.txt'), 'plain\n');
    expect(repositoryStamp(places)).toBe(stamps[0]);
    git(top, 'add', 'notes.txt');
    stamps.push(repositoryStamp(places));
    git(top, 'branch', 'other');
    stamps.push(repositoryStamp(places));
    execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: top, input: 'another\n' });
    stamps.push(repositoryStamp(places));
    expect(new Set(stamps).size).toBe(4);
  });
});
