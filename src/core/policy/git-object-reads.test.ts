import { describe, expect, it } from 'vitest';
import { gitObjectReach, gitObjectReader, gitRepositoryFolder, objectIdsOf, readsProtectedObjects } from './git-object-reads.js';

const reach = (command: string): string => gitObjectReach(command.split(' '));

describe('gitObjectReach', () => {
  it('reads content through trees and the index for every subcommand not known to print names only, an alias included', () => {
    for (const command of ['git log -p', 'git show', 'git diff', 'git diff --cached', 'git grep SALT HEAD', 'git archive HEAD', 'git format-patch --stdout', 'git blame x', 'git bundle create b --all', 'git fast-export --all', 'git stash show -p', 'git stash show', 'git whatchanged', 'git myalias']) {
      expect(reach(command), command).toBe('paths');
    }
  });

  it('reads any object for the raw forms', () => {
    for (const command of ['git cat-file -p HEAD', 'git cat-file --batch', 'git unpack-objects', 'git log --batch-all-objects', 'git diff-tree -p HEAD']) {
      expect(reach(command), command).toBe('ids');
    }
  });

  it('reads history by names and messages for log and reflog with the options that print only those, content for any other', () => {
    for (const command of ['git log', 'git --no-pager log', 'git log --oneline -n 5 --all', 'git log -20 --stat --name-status --format=%H%x09%s --author=me', 'git log --grep=fix -i main -- src', 'git reflog', 'git reflog -n 3']) {
      expect(reach(command), command).toBe('none');
    }
    for (const command of ['git log -p', 'git log -u', 'git log --patch', 'git log --pat', 'git log -S SALT --oneline', 'git log -GSALT', 'git log -L 1,5:.env', 'git log --word-diff', 'git log --onel', 'git log -1p', 'git log --cc', 'git reflog -p', 'git log --output=x', 'git log --format=%(raw)']) {
      expect(reach(command), command).toBe('paths');
    }
  });

  it('prints nothing of the store for names, ids and plain state, unless an option makes it print a diff', () => {
    for (const command of ['git status', 'git ls-tree HEAD', 'git ls-files', 'git rev-parse HEAD', 'git add .', 'git commit -m fix', 'git checkout main', 'git stash list', 'git branch -a', 'git', 'git -C sub status']) {
      expect(reach(command), command).toBe('none');
    }
    for (const command of ['git tag -l --format=%(raw)', 'git branch --format=x%(raw:size)', 'git status -v', 'git add -p', 'git commit --verbose', 'git checkout -p', 'git restore --patch', 'git reset -p', 'git stash -p']) {
      expect(reach(command), command).toBe('paths');
    }
  });
});

describe('objectIdsOf', () => {
  it('finds each run of four or more hex digits an argument holds, lower case', () => {
    expect(objectIdsOf(['git', 'show', '92DC429'])).toEqual(['92dc429']);
    expect(objectIdsOf(['git', 'diff', 'a1b2..c3d4', '92dc429:notes.txt', '--blob=beef'])).toEqual(['a1b2', 'c3d4', '92dc429', 'beef']);
    expect(objectIdsOf(['git', 'update-index', '--cacheinfo', '100644,92dc4291,notes.txt'])).toEqual(['100644', '92dc4291']);
    expect(objectIdsOf(['git', 'log', '-n3', 'abc', 'HEAD~1', 'main'])).toEqual([]);
  });
});

describe('gitObjectReader', () => {
  it('finds git behind the exec wrappers an exact entry may name, and nothing in another program', () => {
    expect(gitObjectReader(['timeout', '5', 'git', 'log', '-p'])?.argv).toEqual(['git', 'log', '-p']);
    expect(gitObjectReader(['/usr/bin/git', 'show'])?.reach).toBe('paths');
    expect(gitObjectReader(['git', 'status'])).toBeUndefined();
    expect(gitObjectReader(['git', 'tag', 't', '92dc429'])).toEqual({ argv: ['git', 'tag', 't', '92dc429'], reach: 'none', ids: ['92dc429'], intoSubmodules: false });
    expect(gitObjectReader(['cat', 'notes.txt'])).toBeUndefined();
  });
});

describe('gitRepositoryFolder', () => {
  it('joins each -C to the working directory, as git enters them', () => {
    expect(gitRepositoryFolder(['git', 'log'], '.')).toBe('.');
    expect(gitRepositoryFolder(['git', '-C', 'a', '-C', 'b', 'log'], 'src')).toBe('src/a/b');
    expect(gitRepositoryFolder(['git', '-C', '.', 'log', '-C', 'x'], '.')).toBe('.');
    expect(gitRepositoryFolder(['git', '--git-dir=other.git', 'log'], '.')).toBeUndefined();
  });
});

describe('readsProtectedObjects', () => {
  const store = (protectedNames: boolean, unreachable: boolean, namesUnreachable = false) => ({ protectedNames, unreachable, namesUnreachable });
  it('asks for content or an id when history names a protected path', () => {
    expect(readsProtectedObjects(['git', 'log', '-p'], store(true, false))).toBe(true);
    expect(readsProtectedObjects(['git', 'tag', 't', '92dc429'], store(true, false))).toBe(true);
    expect(readsProtectedObjects(['git', 'log', '-p'], store(false, true))).toBe(false);
  });

  it('asks, where the store holds objects nothing reaches, for the raw forms and for an id that may be one of them', () => {
    expect(readsProtectedObjects(['git', 'cat-file', '-p', 'HEAD'], store(false, true))).toBe(true);
    expect(readsProtectedObjects(['git', 'cat-file', '-p', 'HEAD'], store(false, false))).toBe(false);
    expect(readsProtectedObjects(['git', 'show', '92dc429'], store(false, true, true))).toBe(true);
    expect(readsProtectedObjects(['git', 'tag', 't', '92dc429'], store(false, true, true))).toBe(true);
    expect(readsProtectedObjects(['git', 'show', '92dc429'], store(false, true, false))).toBe(false);
  });

  it('asks for content printed from submodules, whose stores the host does not read, whatever the store holds', () => {
    for (const command of [['git', 'grep', '--recurse-submodules', 'SALT', 'HEAD'], ['git', 'diff', '--submodule=diff'], ['git', 'log', '-p', '--recurse-sub']]) {
      expect(readsProtectedObjects(command, store(false, false)), command.join(' ')).toBe(true);
    }
    expect(readsProtectedObjects(['git', 'grep', '--no-recurse-submodules', 'SALT', 'HEAD'], store(false, false))).toBe(false);
    expect(readsProtectedObjects(['git', 'checkout', '--recurse-submodules', 'main'], store(false, false))).toBe(false);
  });

  it('judges a store nobody looked at as holding a protected file', () => {
    expect(readsProtectedObjects(['git', 'diff'], undefined)).toBe(true);
    expect(readsProtectedObjects(['git', 'status'], undefined)).toBe(false);
  });
});
