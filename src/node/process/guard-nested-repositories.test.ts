import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProgram } from './find-program.js';
import { createNestedRepositoryGuard } from './guard-nested-repositories.js';

describe('createNestedRepositoryGuard: a repository a command leaves holding new code is moved aside', () => {
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
    const baseline = await nested.before([mine]);
    const made = repository('made');
    fsmonitor(made);
    writeFileSync(path.join(mine, 'hooks', 'post-checkout'), '#!/bin/sh\n', { mode: 0o755 });
    expect(await nested.after(baseline, [made, mine])).toEqual({
      moved: [
        { from: 'made/.git', to: 'made/.git-held-by-toolgate', because: ['config: core.fsmonitor'] },
        { from: 'mine/.git', to: 'mine/.git-held-by-toolgate', because: ['hooks/post-checkout'] },
      ],
      failed: [],
    });
    expect(existsSync(made)).toBe(false);
    expect(existsSync(path.join(workspace, 'made', '.git-held-by-toolgate', 'config'))).toBe(true);
  });

  it("leaves a repository of the user's with hooks and settings of its own while a command adds none, and a new one that holds none", async () => {
    const nested = guard();
    const mine = repository('mine');
    fsmonitor(mine);
    writeFileSync(path.join(mine, 'hooks', 'pre-commit'), '#!/bin/sh\n', { mode: 0o755 });
    const baseline = await nested.before([mine]);
    execFileSync('git', ['-C', path.join(workspace, 'mine'), 'config', 'user.email', 'me@example.com']);
    const plain = repository('plain');
    expect(await nested.after(baseline, [mine, plain])).toEqual({ moved: [], failed: [] });
    // Its hook rewritten is another hook.
    writeFileSync(path.join(mine, 'hooks', 'pre-commit'), '#!/bin/sh\ntouch pwned\n');
    expect((await nested.after(baseline, [mine, plain])).moved).toEqual([{ from: 'mine/.git', to: 'mine/.git-held-by-toolgate', because: ['hooks/pre-commit'] }]);
  });

  it('takes the next free name, and passes over a .git gone since the walk', async () => {
    const nested = guard();
    const baseline = await nested.before([]);
    const made = repository('made');
    fsmonitor(made);
    mkdirSync(path.join(workspace, 'made', '.git-held-by-toolgate'));
    writeFileSync(path.join(workspace, 'made', '.git-held-by-toolgate', 'kept'), 'x');
    writeFileSync(path.join(workspace, 'made', '.git-held-by-toolgate-2'), 'x');
    expect((await nested.after(baseline, [made, path.join(workspace, 'gone', '.git')])).moved).toEqual([
      { from: 'made/.git', to: 'made/.git-held-by-toolgate-3', because: ['config: core.fsmonitor'] },
    ]);
  });
});
