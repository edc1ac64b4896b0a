import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProgram } from './find-program.js';
import { createNestedRepositoryGuard } from './guard-nested-repositories.js';

describe('createNestedRepositoryGuard: a repository an operation leaves holding new code is moved aside', () => {
  let workspace = '';
  const git = findProgram('git', ['/usr/bin', '/bin']) as string;
  const guard = () => createNestedRepositoryGuard({ workspace, git, env: { PATH: '/usr/bin:/bin' } });
  const repository = (name: string): string => {
    execFileSync('git', ['init', '-q', path.join(workspace, name)]);
    return path.join(workspace, name, '.git');
  };
  const fsmonitor = (entry: string): void => appendFileSync(path.join(entry, 'config'), '[core]\n\tfsmonitor = "touch pwned"\n');

  beforeEach(() => {
    workspace = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-nested-')));
    execFileSync('git', ['init', '-q', workspace]);
  });
  afterEach(() => rmSync(workspace, { recursive: true, force: true }));

  it('moves a repository made with a program in its configuration, and one given a hook, naming what each holds', async () => {
    const nested = guard();
    const mine = repository('mine');
    await nested.enter([mine]);
    const made = repository('made');
    fsmonitor(made);
    writeFileSync(path.join(mine, 'hooks', 'post-checkout'), '#!/bin/sh\n', { mode: 0o755 });
    expect(await nested.leave([made, mine], true)).toEqual({
      moved: [
        { from: 'made/.git', to: 'made/.git-held-by-toolgate', because: ['config: core.fsmonitor'] },
        { from: 'mine/.git', to: 'mine/.git-held-by-toolgate', because: ['hooks/post-checkout'] },
      ],
      failed: [],
      unchecked: false,
    });
    expect(existsSync(made)).toBe(false);
    expect(existsSync(path.join(workspace, 'made', '.git-held-by-toolgate', 'config'))).toBe(true);
  });

  it("leaves a repository of the user's with hooks and settings of its own while an operation adds none, and a new one that holds none", async () => {
    const nested = guard();
    const mine = repository('mine');
    fsmonitor(mine);
    writeFileSync(path.join(mine, 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    await nested.enter([mine]);
    execFileSync('git', ['-C', path.join(workspace, 'mine'), 'config', 'user.email', 'me@example.com']);
    const plain = repository('plain');
    expect(await nested.leave([mine, plain], true)).toEqual({ moved: [], failed: [], unchecked: false });
    // Its hook rewritten is another hook.
    await nested.enter([mine, plain]);
    writeFileSync(path.join(mine, 'hooks', 'pre-commit'), '#!/bin/sh\ntouch pwned\n');
    expect((await nested.leave([mine, plain], true)).moved).toEqual([{ from: 'mine/.git', to: 'mine/.git-held-by-toolgate', because: ['hooks/pre-commit'] }]);
  });

  it('an operation entering while another is under way is held to what the user had before both: a repository planted by the first is moved after either', async () => {
    const nested = guard();
    const mine = repository('mine');
    await nested.enter([mine]);
    fsmonitor(mine);
    // The second enters with the first's key in place, and the first leaves after hiding the .git from its walk.
    await nested.enter([mine]);
    expect(await nested.leave([], true)).toEqual({ moved: [], failed: [], unchecked: false });
    expect((await nested.leave([mine], true)).moved).toEqual([{ from: 'mine/.git', to: 'mine/.git-held-by-toolgate', because: ['config: core.fsmonitor'] }]);
  });

  it("a check that could not walk the workspace whole still reads what it knew, and leaves nothing to be taken as the user's until one completes", async () => {
    const nested = guard();
    const mine = repository('mine');
    const other = repository('other');
    await nested.enter([mine, other]);
    fsmonitor(mine);
    expect(await nested.leave([mine], false)).toEqual({ moved: [{ from: 'mine/.git', to: 'mine/.git-held-by-toolgate', because: ['config: core.fsmonitor'] }], failed: [], unchecked: true });
    // With nothing under way the next operation would read what is there as the user's; it does not.
    fsmonitor(other);
    await nested.enter([other]);
    expect((await nested.leave([other], true)).moved).toEqual([{ from: 'other/.git', to: 'other/.git-held-by-toolgate', because: ['config: core.fsmonitor'] }]);
    // Settled again: what is there now is the user's.
    const again = repository('again');
    fsmonitor(again);
    await nested.enter([again]);
    expect((await nested.leave([again], true)).moved).toEqual([]);
  });

  it('takes a name no command can take ahead when the plain one is taken, and passes over a .git gone since the walk', async () => {
    const nested = guard();
    await nested.enter([]);
    const made = repository('made');
    fsmonitor(made);
    mkdirSync(path.join(workspace, 'made', '.git-held-by-toolgate'));
    writeFileSync(path.join(workspace, 'made', '.git-held-by-toolgate', 'kept'), 'x');
    const check = await nested.leave([made, path.join(workspace, 'gone', '.git')], true);
    expect(check.moved).toHaveLength(1);
    expect(check.moved[0]?.to).toMatch(/^made\/\.git-held-by-toolgate-[0-9a-f]{12}$/);
    expect(existsSync(path.join(workspace, 'made', '.git-held-by-toolgate', 'kept'))).toBe(true);
  });
});
