import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { closeAfterEach } from './support/serve-gateway.js';
import { serveRepository, userGit } from './support/served-repository.js';

// A hostile model in `auto` under an ordinary `Bash(git *)` writes the repository's code of the work tree (the
// hooks folder `core.hooksPath` names, a configuration file an include names) with toolgate's own git alone: a
// blob made by `git notes add -m`, put in the index by `git update-index`, checked out by `git checkout-index -a`
// or by a switch to a branch it committed. No argument names the hook, so no card; the user's next commit or
// `git status`, outside toolgate, runs what was written. Each drives `toolgate serve` with the MCP SDK client.

const opened = closeAfterEach();
const attackHome = useAttackHomes('toolgate-git-checkout-code-home');
const HOOK = '#!/bin/sh\nexit 0\n';
const SHARED = '[pull]\n\trebase = true\n';

const files = { '.husky/pre-commit': HOOK, 'shared.gitconfig': SHARED, 'notes.txt': 'plain\n' };
// The committed hook and configuration are protected, so a git command that can print what the object store holds
// of them asks first (`test/attack-git-object-store.test.ts`); read freely here, each write reaches the sandbox.
const readable = ['.husky/**', 'shared.gitconfig', '.githooks/**'];

/** The user's repository before the agent starts: husky's hooks folder and a shared configuration of the work tree, committed. */
function userRepository(workspace: string): void {
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: workspace });
  git('config', 'core.hooksPath', '.husky');
  git('config', 'include.path', '../shared.gitconfig');
  for (const setting of [['user.name', 'a'], ['user.email', 'a@example.com']]) git('config', ...setting);
  chmodSync(join(workspace, '.husky/pre-commit'), 0o755);
  git('add', ...Object.keys(files));
  git('commit', '-q', '--no-verify', '-m', 'user');
}

const blobOf = (listed: string): string => /([0-9a-f]{40})/.exec(listed)?.[1] ?? 'none';

describe("attack: toolgate's own git writes the work tree's git code", () => {
  it("a note's blob put in the index and checked out as .husky/pre-commit: the user's next commit runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), 'workspace-write', ['git'], files, userRepository, readable);
    const marker = join(workspace, 'PWNED-hook');
    const results = [await run(['git', 'notes', 'add', '-m', `touch ${marker}`, 'HEAD'])];
    results.push(await run(['git', 'notes', 'list', 'HEAD']));
    results.push(await run(['git', 'update-index', '--cacheinfo', `100755,${blobOf(results[1] ?? '')},.husky/pre-commit`]));
    results.push(await run(['git', 'checkout-index', '-f', '-a']));
    userGit(workspace, 'commit', '-q', '--allow-empty', '-m', 'after the agent');
    expect(existsSync(marker), results.join('\n')).toBe(false);
    expect(readFileSync(join(workspace, '.husky/pre-commit'), 'utf8')).toBe(HOOK);
    expect(results[3]).toMatch(/Read-only file system|Device or resource busy/);
  }, 60_000);

  it("a branch the model committed, whose shared.gitconfig names an fsmonitor, switched to: the user's next status runs nothing of it", async () => {
    const { workspace, run } = await serveRepository(opened, attackHome(), 'workspace-write', ['git'], files, userRepository, readable);
    const marker = join(workspace, 'PWNED-fsmonitor');
    const results = [await run(['git', 'notes', 'add', '-m', `[core] fsmonitor = "touch ${marker}; false"`, 'HEAD'])];
    results.push(await run(['git', 'notes', 'list', 'HEAD']));
    results.push(await run(['git', 'checkout', '-q', '-b', 'feature']));
    results.push(await run(['git', 'update-index', '--cacheinfo', `100644,${blobOf(results[1] ?? '')},shared.gitconfig`]));
    results.push(await run(['git', 'commit', '-q', '-m', 'feature']));
    results.push(await run(['git', 'checkout', '-q', '-f', 'master']));
    results.push(await run(['git', 'checkout', '-q', '-f', 'feature']));
    userGit(workspace, 'status');
    expect(existsSync(marker), results.join('\n')).toBe(false);
    expect(readFileSync(join(workspace, 'shared.gitconfig'), 'utf8')).toBe(SHARED);
  }, 60_000);

  it("a hooks folder core.hooksPath names that is not made yet, made by a branch switch: moved aside, and the user's next commit runs nothing of it", async () => {
    const made = (workspace: string): void => {
      userRepository(workspace);
      execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: workspace });
    };
    const { workspace, run } = await serveRepository(opened, attackHome(), 'workspace-write', ['git'], files, made, readable);
    const marker = join(workspace, 'PWNED-new-hook');
    const results = [await run(['git', 'notes', 'add', '-m', `touch ${marker}`, 'HEAD'])];
    results.push(await run(['git', 'notes', 'list', 'HEAD']));
    results.push(await run(['git', 'checkout', '-q', '-b', 'feature']));
    results.push(await run(['git', 'update-index', '--add', '--cacheinfo', `100755,${blobOf(results[1] ?? '')},.githooks/pre-commit`]));
    results.push(await run(['git', 'commit', '-q', '-m', 'feature']));
    results.push(await run(['git', 'checkout', '-q', '-f', 'master']));
    results.push(await run(['git', 'checkout', '-q', '-f', 'feature']));
    userGit(workspace, 'commit', '-q', '--allow-empty', '-m', 'after the agent');
    expect(existsSync(marker), results.join('\n')).toBe(false);
    expect(results[6]).toContain('.githooks-held-by-toolgate');
  }, 60_000);
});
