import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createObjectStoreReader } from './object-store-content.js';
import { gitIn, useTempFolders } from './__fixtures__/temp-repository.js';

const makeFolder = useTempFolders('toolgate-object-store');

/** A repository holding `notes.txt` committed, and `.env` on disk, never added. */
function repository(): { folder: string; git: (...args: string[]) => string } {
  const folder = makeFolder();
  const git = (...args: string[]): string => gitIn(folder, ...args);
  git('init', '-q');
  writeFileSync(path.join(folder, 'notes.txt'), 'plain\n');
  writeFileSync(path.join(folder, '.env'), 'SALT=x\n');
  git('add', 'notes.txt');
  git('commit', '-q', '-m', 'first');
  return { folder, git };
}

const isEnv = (absolute: string): boolean => path.basename(absolute) === '.env';

describe('createObjectStoreReader', () => {
  it('says nothing is held where no protected file was ever added, and outside any repository', () => {
    const { folder } = repository();
    const read = createObjectStoreReader(isEnv);
    expect(read(folder, [])).toEqual({ protectedNames: false, unreachable: false, namesUnreachable: false });
    expect(read(path.parse(folder).root, [])).toEqual({ protectedNames: false, unreachable: false, namesUnreachable: false });
  });

  it('sees a protected path staged, committed, stashed or only in a reflog, from a folder below the top', () => {
    const read = createObjectStoreReader(isEnv);
    const staged = repository();
    mkdirSync(path.join(staged.folder, 'src'));
    staged.git('add', '.env');
    expect(read(path.join(staged.folder, 'src'), []).protectedNames).toBe(true);
    staged.git('commit', '-q', '-m', 'env');
    staged.git('rm', '-q', '.env');
    staged.git('commit', '-q', '-m', 'gone');
    expect(read(staged.folder, []).protectedNames).toBe(true);
    staged.git('reset', '-q', '--hard', 'HEAD~2');
    // Only the reflog reaches the commit now.
    expect(read(staged.folder, []).protectedNames).toBe(true);
    const stashed = repository();
    stashed.git('stash', 'push', '-q', '--include-untracked');
    expect(read(stashed.folder, []).protectedNames).toBe(true);
  });

  it('sees objects nothing reaches: a .env added, then taken out of the index, and an id that may name it, whole or abbreviated', () => {
    const { folder, git } = repository();
    const read = createObjectStoreReader(isEnv);
    git('add', '.env');
    const blob = git('rev-parse', ':.env').trim();
    git('rm', '-q', '--cached', '.env');
    const head = git('rev-parse', 'HEAD').trim();
    expect(read(folder, [])).toEqual({ protectedNames: false, unreachable: true, namesUnreachable: false });
    expect(read(folder, [head, head.slice(0, 7)]).namesUnreachable).toBe(false);
    expect(read(folder, [blob]).namesUnreachable).toBe(true);
    expect(read(folder, [head.slice(0, 7), blob.slice(0, 4)]).namesUnreachable).toBe(true);
  });

  it('keeps an answer until what git reads changes: a blob written alone is seen at once', () => {
    const { folder, git } = repository();
    const read = createObjectStoreReader(isEnv);
    expect(read(folder, []).unreachable).toBe(false);
    execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: folder, input: 'SALT=x\n' });
    expect(read(folder, []).unreachable).toBe(true);
    git('add', '.env');
    expect(read(folder, []).protectedNames).toBe(true);
  });

  it('judges a repository git cannot read as holding everything', () => {
    const { folder } = repository();
    writeFileSync(path.join(folder, '.git', 'HEAD'), 'not a ref\n');
    expect(createObjectStoreReader(isEnv)(folder, ['abcd'])).toEqual({ protectedNames: true, unreachable: true, namesUnreachable: true });
  });
});
