import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';

// A hostile model against a user whose environment tells git where its own configuration is: dotfiles kept under
// `XDG_CONFIG_HOME`, a `GIT_CONFIG_GLOBAL` file, or keys given as `GIT_CONFIG_KEY_0`. The gateway runs in that
// environment, and there `core.hooksPath = .githooks` makes `.githooks/pre-commit` of the work tree what the user's
// own git runs at the next commit, outside toolgate and its sandbox. Through `toolgate serve` and the SDK client.

const HOOK = '#!/bin/sh\nexit 0\n';
const PAYLOAD = '#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/PWNED_BY_HOOK"\n';
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

/** The user's environment, naming `core.hooksPath = .githooks` the way `how` says. */
function userEnvironment(how: string): Record<string, string> {
  const config = mkdtempSync(join(tmpdir(), 'toolgate-user-config-'));
  const setting = '[core]\n\thooksPath = .githooks\n';
  if (how === 'XDG_CONFIG_HOME') {
    mkdirSync(join(config, 'git'));
    writeFileSync(join(config, 'git', 'config'), setting);
    return { XDG_CONFIG_HOME: config };
  }
  if (how === 'GIT_CONFIG_GLOBAL') {
    writeFileSync(join(config, 'gitconfig'), setting);
    return { GIT_CONFIG_GLOBAL: join(config, 'gitconfig') };
  }
  return { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.hooksPath', GIT_CONFIG_VALUE_0: '.githooks' };
}

describe.each(['XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_COUNT'])('attack: the hooks folder the user\'s git configuration names through %s', (how) => {
  it('in accept-edits, write_file of .githooks/pre-commit asks as protected, and rejected, the user\'s next commit runs the hook it had', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits' }, { '.githooks/pre-commit': HOOK, 'notes.txt': 'plain\n' });
    chmodSync(join(workspace, '.githooks/pre-commit'), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    const userEnv = userEnvironment(how);
    const gateway = opened.gateway(await serveWorkspace(workspace, { env: userEnv }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const written = await decideIfAsked(gateway, mcp, 'write_file', { path: '.githooks/pre-commit', content: PAYLOAD }, 'reject');
    // The user's own commit, in the user's environment.
    const env = { ...process.env, ...userEnv, GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@example.com' };
    execFileSync('git', ['add', 'notes.txt'], { cwd: workspace, env });
    execFileSync('git', ['commit', '-q', '-m', 'user'], { cwd: workspace, env });
    expect(existsSync(join(workspace, 'PWNED_BY_HOOK')), `the user's commit ran the model's hook: ${text(written.result)}`).toBe(false);
    expect(written.card?.reasons.protectedPath).toBe(true);
    expect(readFileSync(join(workspace, '.githooks/pre-commit'), 'utf8')).toBe(HOOK);
  }, 60_000);
});
