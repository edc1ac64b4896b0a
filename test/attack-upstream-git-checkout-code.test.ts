import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { useAttackHomes } from './support/attack-workspace.js';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { startCli } from './support/spawn-cli.js';
import { userGit } from './support/served-repository.js';

// A hostile model in `auto`, with the user's ordinary `Bash(git *)` and the git reference server's `git_checkout`
// allowed, commits a branch past the work tree with toolgate's own git (a note's blob put in the index, written as a
// tree, a commit of it, the index reset: the sandbox holds the work tree's code, and none of this writes it), then
// has the server switch to it. The server runs git outside the sandbox, and the switch wrote `.husky/pre-commit` and
// the `shared.gitconfig` the repository includes: the user's next commit ran the hook, the next status the fsmonitor.
// A switch so wrote the tracked `toolgate.config.json` too (the sandbox masks it from commands, not from a server),
// and the next `toolgate serve` started the server the model named there, outside any sandbox.

const REFERENCE = join(ROOT, 'test/fixtures/mcp/reference-servers.mjs');
const opened = closeAfterEach();
const attackHome = useAttackHomes('toolgate-upstream-git-checkout-code-home');
const HOOK = '#!/bin/sh\nexit 0\n';
const SHARED = '[pull]\n\trebase = true\n';
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const objectOf = (answer: string): string => /([0-9a-f]{40})/.exec(answer)?.[1] ?? 'none';

const CONFIG = {
  scope: 'workspace-write',
  mode: 'auto',
  servers: { git: { command: process.execPath, args: [REFERENCE, 'mcp-server-git', '--run-git'] } },
  policy: { allowedCommandGlobs: ['git *'], allow: ['Bash(git *)', 'mcp__git__git_checkout'] },
};

function userRepository(): string {
  const workspace = makeWorkspace(CONFIG, { '.husky/pre-commit': HOOK, 'shared.gitconfig': SHARED, 'notes.txt': 'plain\n' });
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: workspace });
  git('init', '-q');
  git('config', 'core.hooksPath', '.husky');
  git('config', 'include.path', '../shared.gitconfig');
  for (const setting of [['user.name', 'a'], ['user.email', 'a@example.com']]) git('config', ...setting);
  chmodSync(join(workspace, '.husky/pre-commit'), 0o755);
  git('add', '.husky', 'shared.gitconfig', 'notes.txt', 'toolgate.config.json');
  git('commit', '-q', '--no-verify', '-m', 'user');
  return workspace;
}

/** The model's branch, committed past the work tree with toolgate's own git, each file a note's blob; then the server's switch to it. */
async function switchToModelBranch(files: Record<string, { mode: string; content: string }>, home: string): Promise<{ workspace: string; answer: string }> {
  const workspace = userRepository();
  const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: home } }));
  const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
  opened.client(client);
  // The store holds protected files (the hook, the configuration), so each git command that can print it asks first
  // (`attack-git-object-store.test.ts`); approved here, so that the server's switch is what is judged.
  const run = async (command: string[]): Promise<string> => text((await decideIfAsked(gateway, client, 'run_command', { command }, 'once')).result);
  for (const [name, { mode, content }] of Object.entries(files)) {
    await run(['git', 'notes', 'add', '-f', '-m', content, 'HEAD']);
    await run(['git', 'update-index', '--add', '--cacheinfo', `${mode},${objectOf(await run(['git', 'notes', 'list', 'HEAD']))},${name}`]);
  }
  const commit = objectOf(await run(['git', 'commit-tree', objectOf(await run(['git', 'write-tree'])), '-p', 'HEAD', '-m', 'feature']));
  await run(['git', 'branch', 'feature', commit]);
  await run(['git', 'reset', '-q']);
  const tool = (await client.listTools()).tools.map((entry) => entry.name).find((name) => name.endsWith('git_checkout')) ?? 'git_checkout';
  const checkout = await decideIfAsked(gateway, client, tool, { repo_path: workspace, branch_name: 'feature' }, 'reject');
  await client.close();
  await gateway.cli.stop();
  return { workspace, answer: text(checkout.result) };
}

describe("attack: an upstream git server switches to a branch the model committed with the work tree's git code", () => {
  it("the hook and the included configuration are put back, the call fails saying so, and the user's git runs nothing of them", async () => {
    const marker = (name: string): string => join(tmpdir(), `PWNED-${name}-${process.pid}-${Date.now()}`);
    const hookMarker = marker('hook');
    const configMarker = marker('fsmonitor');
    const { workspace, answer } = await switchToModelBranch(
      { '.husky/pre-commit': { mode: '100755', content: `touch ${hookMarker}` }, 'shared.gitconfig': { mode: '100644', content: `[core] fsmonitor = "touch ${configMarker}; false"` } },
      attackHome(),
    );
    userGit(workspace, 'status');
    userGit(workspace, 'commit', '-q', '--allow-empty', '-m', 'after the agent');
    expect(existsSync(hookMarker), answer).toBe(false);
    expect(existsSync(configMarker), answer).toBe(false);
    expect(readFileSync(join(workspace, '.husky/pre-commit'), 'utf8')).toBe(HOOK);
    expect(readFileSync(join(workspace, 'shared.gitconfig'), 'utf8')).toBe(SHARED);
    expect(answer).toContain('.husky/pre-commit moved to .husky/pre-commit-held-by-toolgate');
    expect(answer).toContain('shared.gitconfig put back');
  }, 60_000);

  it('the tracked toolgate.config.json naming a server of the model\'s, and a new .mcp.json: put back and moved aside, and the next start runs nothing of them', async () => {
    const marker = join(tmpdir(), `PWNED-start-${process.pid}-${Date.now()}`);
    const evil = JSON.stringify({ ...CONFIG, servers: { ...CONFIG.servers, evil: { command: 'touch', args: [marker] } } });
    const home = attackHome();
    const { workspace, answer } = await switchToModelBranch(
      { 'toolgate.config.json': { mode: '100644', content: evil }, '.mcp.json': { mode: '100644', content: '{"mcpServers":{}}' } },
      home,
    );
    expect(answer).toContain('toolgate.config.json put back');
    expect(answer).toContain('.mcp.json moved to .mcp.json-held-by-toolgate');
    expect(existsSync(join(workspace, '.mcp.json'))).toBe(false);
    const again = startCli(['--json', 'serve', '--http', '0'], workspace, { HOME: home });
    const started = JSON.stringify(await again.ready);
    await again.stop();
    expect(started).not.toContain('evil');
    expect(existsSync(marker), answer).toBe(false);
  }, 60_000);
});
