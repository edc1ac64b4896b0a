import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';

// A hostile model in a husky repository too large for the walk of the workspace (a node_modules past its 200,000
// entries; here the bound is set low): the walk is how the file tools learn the places the repository's code lies in,
// and without it `.husky/pre-commit` was judged by its name alone, an ordinary one. The user's next commit runs what is
// there, outside toolgate and its sandbox. Through `toolgate serve` and the SDK client, in accept-edits.

const HOOK = '#!/bin/sh\nexit 0\n';
const PAYLOAD = '#!/bin/sh\ntouch "$(git rev-parse --show-toplevel)/PWNED_BY_HOOK"\n';
const FSMONITOR = '[core]\n\tfsmonitor = "touch PWNED_BY_CONFIG; false"\n';
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const opened = closeAfterEach();

describe('attack: a husky repository past the bound of the workspace walk', () => {
  it('in accept-edits, write_file of .husky/pre-commit and of an included configuration ask as protected; rejected, the user\'s git runs neither', async () => {
    const files: Record<string, string> = { '.husky/pre-commit': HOOK, 'shared.gitconfig': '[pull]\n\trebase = true\n', 'notes.txt': 'plain\n' };
    for (let index = 0; index < 60; index += 1) files[`node_modules/p${index}/index.js`] = '';
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'accept-edits', limits: { maskWalkEntries: 50 } }, files);
    chmodSync(join(workspace, '.husky/pre-commit'), 0o755);
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: workspace });
    execFileSync('git', ['config', 'include.path', '../shared.gitconfig'], { cwd: workspace });
    const gateway = opened.gateway(await serveWorkspace(workspace));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const hook = await decideIfAsked(gateway, mcp, 'write_file', { path: '.husky/pre-commit', content: PAYLOAD }, 'reject');
    const config = await decideIfAsked(gateway, mcp, 'write_file', { path: 'shared.gitconfig', content: FSMONITOR }, 'reject');
    const env = { ...process.env, GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@example.com', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@example.com' };
    execFileSync('git', ['add', 'notes.txt'], { cwd: workspace, env });
    execFileSync('git', ['commit', '-q', '-m', 'user'], { cwd: workspace, env });
    expect(existsSync(join(workspace, 'PWNED_BY_HOOK')), `the user's commit ran the model's hook: ${text(hook.result)}`).toBe(false);
    expect(existsSync(join(workspace, 'PWNED_BY_CONFIG')), `the user's git ran the model's program: ${text(config.result)}`).toBe(false);
    for (const asked of [hook, config]) expect(asked.card?.reasons.protectedPath).toBe(true);
    expect(readFileSync(join(workspace, '.husky/pre-commit'), 'utf8')).toBe(HOOK);
    // An ordinary edit still runs unasked.
    const plain = await decideIfAsked(gateway, mcp, 'write_file', { path: 'notes.txt', content: 'edited\n' }, 'reject');
    expect(plain.card).toBeUndefined();
  }, 60_000);
});
