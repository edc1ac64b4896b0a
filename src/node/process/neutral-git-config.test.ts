import { describe, expect, it } from 'vitest';
import { isNeutralSetting, parseConfigList } from './neutral-git-config.js';

describe('parseConfigList: git config --list --null as entries', () => {
  it('parts each entry at its first newline; a key alone has no value, and a value keeps its own newlines', () => {
    expect(parseConfigList('core.bare\nfalse\0core.filemode\0alias.x\n!sh -c "a\nb"\0')).toEqual([
      { key: 'core.bare', value: 'false' },
      { key: 'core.filemode', value: undefined },
      { key: 'alias.x', value: '!sh -c "a\nb"' },
    ]);
    expect(parseConfigList('')).toEqual([]);
  });
});

describe('isNeutralSetting: what git may hold and still run nothing of its own', () => {
  it.each([
    'core.repositoryformatversion',
    'core.bare',
    'extensions.worktreeconfig',
    'user.email',
    'remote.origin.url',
    'remote.my.fork.url',
    'branch.main.merge',
    'branch.feature/x.remote',
    'submodule.libs/sub.url',
    'submodule.libs/sub.active',
  ])('%s is neutral', (key) => {
    expect(isNeutralSetting({ key, value: 'x' })).toBe(true);
  });

  it.each([
    'core.fsmonitor',
    'core.hookspath',
    'core.sshcommand',
    'core.pager',
    'core.editor',
    'core.worktree',
    'core.askpass',
    'diff.external',
    'diff.lfs.textconv',
    'filter.lfs.smudge',
    'merge.ours.driver',
    'include.path',
    'includeif.gitdir:/x/.path',
    'alias.st',
    'credential.helper',
    'gpg.program',
    'remote.origin.uploadpack',
    'remote.origin.receivepack',
    'remote.origin.vcs',
    'remote.url',
    'sequence.editor',
    'extensions.unknown',
    '__proto__.url',
    'constructor.x.url',
    'remote.__proto__.has',
  ])('%s is not', (key) => {
    expect(isNeutralSetting({ key, value: 'x' })).toBe(false);
  });

  it('a submodule update strategy is neutral, and `!command` is not', () => {
    for (const value of ['checkout', 'rebase', 'merge', 'none']) expect(isNeutralSetting({ key: 'submodule.a.update', value })).toBe(true);
    for (const value of ['!touch pwned', 'Checkout', undefined]) expect(isNeutralSetting({ key: 'submodule.a.update', value })).toBe(false);
  });
});
