import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitConfigStamp } from './git-config-stamp.js';

const made: string[] = [];
afterEach(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function repository(): string {
  const repo = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-git-config-stamp-')));
  made.push(repo);
  execFileSync('git', ['init', '-q'], { cwd: repo });
  return repo;
}

describe('gitConfigStamp', () => {
  it('changes with the repository configuration, its HEAD, the user configuration the environment names, an include, and where an included link leads', () => {
    const repo = repository();
    const global = path.join(repo, 'global.gitconfig');
    const include = path.join(repo, 'shared.gitconfig');
    writeFileSync(path.join(repo, 'a.gitconfig'), '');
    writeFileSync(path.join(repo, 'b.gitconfig'), '');
    symlinkSync('a.gitconfig', include);
    const environment = { GIT_CONFIG_GLOBAL: global };
    const stamp = (): string | undefined => gitConfigStamp(repo, environment, [include])?.text;
    const seen = new Set([stamp()]);
    const changed = (what: string): void => {
      const now = stamp();
      expect(seen.has(now), what).toBe(false);
      seen.add(now);
    };
    expect(stamp()).toBe(stamp());
    writeFileSync(path.join(repo, '.git', 'config'), '[core]\n\thooksPath = x\n');
    changed('.git/config');
    writeFileSync(path.join(repo, '.git', 'HEAD'), 'ref: refs/heads/release\n');
    changed('HEAD');
    writeFileSync(global, '[core]\n');
    changed('the user configuration');
    writeFileSync(path.join(repo, 'a.gitconfig'), '[core]\n\thooksPath = y\n');
    changed('an included file, through its link');
    rmSync(include);
    symlinkSync('b.gitconfig', include);
    changed('the include link, re-pointed');
    expect(gitConfigStamp(repo, { ...environment, GIT_CONFIG_COUNT: '1' }, [include])?.text).not.toBe(stamp());
  });

  it('stamps nothing where the git directory is not the workspace\'s own folder', () => {
    const repo = repository();
    const linked = path.join(repo, 'linked');
    mkdirSync(linked);
    writeFileSync(path.join(linked, '.git'), `gitdir: ${path.join(repo, '.git')}\n`);
    expect(gitConfigStamp(linked, {}, [])).toBeUndefined();
    writeFileSync(path.join(repo, '.git', 'commondir'), '.\n');
    expect(gitConfigStamp(repo, {}, [])).toBeDefined();
    writeFileSync(path.join(repo, '.git', 'commondir'), '../elsewhere/.git\n');
    expect(gitConfigStamp(repo, {}, [])).toBeUndefined();
    expect(gitConfigStamp(path.join(repo, 'nowhere'), {}, [])).toBeUndefined();
  });
});
