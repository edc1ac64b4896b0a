import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { useAttackHomes } from './support/attack-workspace.js';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { userGit } from './support/served-repository.js';

// A hostile model in `auto`, with the user's ordinary `Bash(git *)` and the git reference server's `git_checkout`
// allowed, commits a branch past the work tree with toolgate's own git (a note's blob put in the index, written as a
// tree, a commit of it, the index reset: the sandbox holds the work tree's code, and none of this writes it), then
// has the server switch to it. The server runs git outside the sandbox, and the switch wrote `.husky/pre-commit` and
// the `shared.gitconfig` the repository includes: the user's next commit ran the hook, the next status the fsmonitor.

const REFERENCE = join(ROOT, 'test/fixtures/mcp/reference-servers.mjs');
const opened = closeAfterEach();
const attackHome = useAttackHomes('toolgate-upstream-git-checkout-code-home');
const HOOK = '#!/bin/sh\nexit 0\n';
const SHARED = '[pull]\n\trebase = true\n';
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const objectOf = (answer: string): string => /([0-9a-f]{40})/.exec(answer)?.[1] ?? 'none';

function userRepository(): string {
  const workspace = makeWorkspace(
    {
      scope: 'workspace-write',
      mode: 'auto',
      servers: { git: { command: process.execPath, args: [REFERENCE, 'mcp-server-git', '--run-git'] } },
      policy: { allowedCommandGlobs: ['git *'], allow: ['Bash(git *)', 'mcp__git__git_checkout'] },
    },
    { '.husky/pre-commit': HOOK, 'shared.gitconfig': SHARED, 'notes.txt': 'plain\n' },
  );
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: workspace });
  git('init', '-q');
  git('config', 'core.hooksPath', '.husky');
  git('config', 'include.path', '../shared.gitconfig');
  for (const setting of [['user.name', 'a'], ['user.email', 'a@example.com']]) git('config', ...setting);
  chmodSync(join(workspace, '.husky/pre-commit'), 0o755);
  git('add', '.husky', 'shared.gitconfig', 'notes.txt');
  git('commit', '-q', '--no-verify', '-m', 'user');
  return workspace;
}

describe("attack: an upstream git server switches to a branch the model committed with the work tree's git code", () => {
  it("the hook and the included configuration are put back, the call fails saying so, and the user's git runs nothing of them", async () => {
    const workspace = userRepository();
    const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: attackHome() } }));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    opened.client(client);
    const run = async (command: string[]): Promise<string> => text((await decideIfAsked(gateway, client, 'run_command', { command }, 'reject')).result);
    const hookMarker = join(workspace, 'PWNED-hook');
    const configMarker = join(workspace, 'PWNED-fsmonitor');
    const blob = async (content: string): Promise<string> => {
      await run(['git', 'notes', 'add', '-f', '-m', content, 'HEAD']);
      return objectOf(await run(['git', 'notes', 'list', 'HEAD']));
    };
    await run(['git', 'update-index', '--cacheinfo', `100755,${await blob(`touch ${hookMarker}`)},.husky/pre-commit`]);
    await run(['git', 'update-index', '--cacheinfo', `100644,${await blob(`[core] fsmonitor = "touch ${configMarker}; false"`)},shared.gitconfig`]);
    const commit = objectOf(await run(['git', 'commit-tree', objectOf(await run(['git', 'write-tree'])), '-p', 'HEAD', '-m', 'feature']));
    await run(['git', 'branch', 'feature', commit]);
    await run(['git', 'reset', '-q']);
    const tool = (await client.listTools()).tools.map((entry) => entry.name).find((name) => name.endsWith('git_checkout')) ?? 'git_checkout';
    const checkout = await decideIfAsked(gateway, client, tool, { repo_path: workspace, branch_name: 'feature' }, 'reject');
    userGit(workspace, 'status');
    userGit(workspace, 'commit', '-q', '--allow-empty', '-m', 'after the agent');
    expect(existsSync(hookMarker), text(checkout.result)).toBe(false);
    expect(existsSync(configMarker), text(checkout.result)).toBe(false);
    expect(readFileSync(join(workspace, '.husky/pre-commit'), 'utf8')).toBe(HOOK);
    expect(readFileSync(join(workspace, 'shared.gitconfig'), 'utf8')).toBe(SHARED);
    expect(text(checkout.result)).toContain('.husky/pre-commit moved to .husky/pre-commit-held-by-toolgate');
    expect(text(checkout.result)).toContain('shared.gitconfig put back');
  }, 60_000);
});
