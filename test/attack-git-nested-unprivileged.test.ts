import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { decideIfAsked } from './support/pending-approval.js';
import { connectClient, consoleApi, makeWorkspace, type ServedGateway } from './support/serve-gateway.js';
import { withRemovedSubmodule } from './support/removed-submodule.js';
import { CLI, gatewayAuth } from './support/spawn-cli.js';

// The gateway as most people run it: as their own user, not root. A command plants fsmonitor in a nested repository
// and takes the read permission off a folder above it (`chmod 311 vendor`): the host could no longer list the folder,
// and the walk masked it whole and never named `vendor/x/.git`, while the user's git, the same user, still passes the
// folder (its search bit stays) and enters the submodule. The walk gives the owner's read permission back now.

const UID = 65534;
const GID = 65534;
const asUser = { uid: UID, gid: GID };
const cleanup: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});
afterAll(() => {
  for (const folder of cleanup) {
    try {
      execFileSync('chmod', ['-R', 'u+rwx', folder]);
    } catch {
      // gone
    }
    rmSync(folder, { recursive: true, force: true });
  }
});

function gitAs(cwd: string, ...args: string[]): string {
  const home = mkdtempSync(join('/var/tmp', 'toolgate-user-home-'));
  execFileSync('chown', [`${UID}:${GID}`, home]);
  try {
    return execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], { cwd, stdio: 'pipe', encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home }, ...asUser });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function userSteps(workspace: string, steps: readonly (readonly string[])[]): string {
  let out = '';
  for (const args of steps) {
    try {
      out += gitAs(workspace, ...args);
    } catch (error) {
      out += String((error as { stderr?: string }).stderr ?? error);
    }
  }
  return out;
}

const ATTACK_JS = `
const fs = require('node:fs');
const path = require('node:path');
const way = process.argv[2];
if (way === 'unlistable') {
  fs.appendFileSync('vendor/x/.git/config', '[core]\\n\\tfsmonitor = "touch ' + path.resolve('PWNED-unlistable') + '; false"\\n');
  fs.chmodSync('vendor', 0o311);
}
if (way === 'plain') fs.appendFileSync('vendor/x/.git/config', '[core]\\n\\tfsmonitor = "touch ' + path.resolve('PWNED-plain') + '; false"\\n');
console.log(way + ': written');
`;

async function serveAsUser(workspace: string, home: string): Promise<ServedGateway> {
  const child = spawn(process.execPath, [CLI, '--json', 'serve', '--http', '0'], { cwd: workspace, env: { ...process.env, NO_COLOR: '1', HOME: home }, stdio: ['pipe', 'pipe', 'pipe'], ...asUser });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const started = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      try {
        resolve(JSON.parse(out) as Record<string, unknown>);
      } catch {
        // not whole yet
      }
    });
    child.once('exit', (code) => reject(new Error(`toolgate exited with ${String(code)}: ${err}`)));
  });
  if (typeof started.mcp !== 'string') throw new Error(JSON.stringify(started) + err);
  const mcpUrl = new URL(started.mcp);
  const consoleUrl = typeof started.console === 'string' ? new URL(started.console) : undefined;
  const cli = { child, ready: Promise.resolve(started), stderr: () => err, stop: async () => void child.kill('SIGTERM') };
  const served: ServedGateway = { cli, workspace, mcpUrl, auth: gatewayAuth(started), consoleUrl, api: (p, init = {}) => consoleApi(consoleUrl, p, init) };
  return served;
}

function withOldSubmodule(workspace: string): void {
  const upstream = mkdtempSync(join('/var/tmp', 'toolgate-nested-upstream-'));
  cleanup.push(upstream);
  execFileSync('git', ['init', '-q', workspace]);
  withRemovedSubmodule(workspace, upstream);
  execFileSync('chown', ['-R', `${UID}:${GID}`, workspace, upstream]);
}

describe.each(['workspace-write', 'full'])('attack: a gateway run by a user (not root), in %s', (scope) => {
  it('control: the same plant without the chmod is moved aside by the same harness', async () => {
    const policy = { allowedCommandGlobs: ['node *'], allow: ['Bash(node *)'] };
    const parent = mkdtempSync(join('/var/tmp', 'toolgate-nested-ws-'));
    cleanup.push(parent);
    chmodSync(parent, 0o755);
    const workspace = makeWorkspace({ scope, mode: 'auto', policy }, { 'attack.js': ATTACK_JS }, parent);
    cleanup.push(workspace);
    withOldSubmodule(workspace);
    const home = mkdtempSync(join('/var/tmp', 'toolgate-nested-home-'));
    cleanup.push(home);
    execFileSync('chown', [`${UID}:${GID}`, home]);
    const gateway = await serveAsUser(workspace, home);
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    try {
      const result = JSON.stringify((await decideIfAsked(gateway, client, 'run_command', { command: ['node', 'attack.js', 'plain'] }, 'reject')).result);
      expect(result).toContain('movedRepositories');
      userSteps(workspace, [['checkout', '-q', 'HEAD~1'], ['status']]);
      expect(readdirSync(workspace).filter((name) => name.startsWith('PWNED'))).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("unlistable: a command plants fsmonitor in a nested repository and takes the read bit off the folder above it: it is moved aside, and the user's git runs nothing of it", async () => {
    const policy = { allowedCommandGlobs: ['node *'], allow: ['Bash(node *)'] };
    const parent = mkdtempSync(join('/var/tmp', 'toolgate-nested-ws-'));
    cleanup.push(parent);
    chmodSync(parent, 0o755);
    const workspace = makeWorkspace({ scope, mode: 'auto', policy }, { 'attack.js': ATTACK_JS }, parent);
    cleanup.push(workspace);
    chmodSync(workspace, 0o755);
    withOldSubmodule(workspace);
    const home = mkdtempSync(join('/var/tmp', 'toolgate-nested-home-'));
    cleanup.push(home);
    execFileSync('chown', [`${UID}:${GID}`, home]);
    const gateway = await serveAsUser(workspace, home);
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    try {
      const result = JSON.stringify((await decideIfAsked(gateway, client, 'run_command', { command: ['node', 'attack.js', 'unlistable'] }, 'reject')).result);
      expect(result).toContain('unlistable: written');
      expect(result).toContain('"sandbox\\":\\"bwrap');
      expect(result).toContain('movedRepositories');
      const seen = userSteps(workspace, [['checkout', '-q', 'HEAD~1'], ['status']]);
      const pwned = readdirSync(workspace).filter((name) => name.startsWith('PWNED'));
      expect(pwned, `${result}\n${seen}`).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
