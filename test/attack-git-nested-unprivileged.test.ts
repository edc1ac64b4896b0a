import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { withRemovedSubmodule } from './support/removed-submodule.js';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { USER, userFolders, userReachesCli } from './support/unprivileged-user.js';

// The gateway as most people run it: as their own user, not root. A command plants fsmonitor in a nested repository
// and takes the read permission off a folder above it (`chmod 311 vendor`): the host could no longer list the folder,
// and the walk masked it whole and never named `vendor/x/.git`, while the user's git, the same user, still passes the
// folder (its search bit stays) and enters the submodule. The walk gives the owner's read permission back now.

const opened = closeAfterEach();
const userFolder = userFolders();
const upstreams: string[] = [];
afterAll(() => {
  for (const folder of upstreams) rmSync(folder, { recursive: true, force: true });
});

const ATTACK_JS = `
const fs = require('node:fs');
const path = require('node:path');
const way = process.argv[2];
fs.appendFileSync('vendor/x/.git/config', '[core]\\n\\tfsmonitor = "touch ' + path.resolve('PWNED-' + way) + '; false"\\n');
if (way === 'unlistable') fs.chmodSync('vendor', 0o311);
console.log(way + ': written');
`;

/** The user's git, as the user, each step whether or not it succeeds: what matters is what it ran. */
function userSteps(workspace: string, steps: readonly (readonly string[])[]): void {
  const home = userFolder('toolgate-user-home-');
  for (const args of steps) {
    try {
      execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], { cwd: workspace, stdio: 'pipe', env: { PATH: process.env.PATH, HOME: home }, ...USER });
    } catch {
      // What matters is what it ran.
    }
  }
}

/** A repository that had `vendor/x` as a submodule, served by a gateway run as the user, and the agent's command `way`. */
async function plantAs(scope: string, way: string): Promise<{ workspace: string; result: string }> {
  const policy = { allowedCommandGlobs: ['node *'], allow: ['Bash(node *)'] };
  const workspace = makeWorkspace({ scope, mode: 'auto', policy }, { 'attack.js': ATTACK_JS }, userFolder('toolgate-nested-ws-'));
  execFileSync('git', ['init', '-q', workspace]);
  // Made by root's git, then given to the user: git refuses to work in a repository another user owns.
  const upstream = mkdtempSync(join('/var/tmp', 'toolgate-nested-upstream-'));
  upstreams.push(upstream);
  withRemovedSubmodule(workspace, upstream);
  execFileSync('chown', ['-R', `${USER.uid}:${USER.gid}`, workspace, upstream]);
  const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: userFolder('toolgate-nested-home-') }, user: USER }));
  const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
  opened.client(client);
  const result = JSON.stringify((await decideIfAsked(gateway, client, 'run_command', { command: ['node', 'attack.js', way] }, 'reject')).result);
  userSteps(workspace, [['checkout', '-q', 'HEAD~1'], ['status']]);
  return { workspace, result };
}

const pwned = (workspace: string): string[] => readdirSync(workspace).filter((name) => name.startsWith('PWNED'));

describe.skipIf(!userReachesCli()).each(['workspace-write', 'full'])('attack: a gateway run by a user, not root, in %s', (scope) => {
  it('the plant alone is moved aside, as for a gateway run as root', async () => {
    const { workspace, result } = await plantAs(scope, 'plain');
    expect(result).toContain('{\\"from\\":\\"vendor/x/.git\\"');
    expect(pwned(workspace), result).toEqual([]);
  });

  it("unlistable: the plant, and the read permission taken off the folder above it: the folder is listed all the same, the repository moved aside, and the user's git runs nothing of it", async () => {
    const { workspace, result } = await plantAs(scope, 'unlistable');
    expect(result).toContain('"sandbox\\":\\"bwrap');
    expect(result).toContain('{\\"from\\":\\"vendor/x/.git\\"');
    expect(pwned(workspace), result).toEqual([]);
  });
});
