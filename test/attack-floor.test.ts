import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { decide, decideIfAsked, pendingApproval, swapWhileApprovalWaits } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// The floor's attacks replayed against `toolgate serve` with the MCP SDK client and the console's API: a link
// inside the workspace that leads to repository internals or an environment file, secret-bearing files read in
// a permissive mode, and a target swapped for a link while its approval waits. Each checks what reached the disk
// or came back, not only what a function returned.

const SECRET = 'TOOLGATE_FLOOR_SECRET=hunter2';
const PAYLOAD = '[core]\n\tfsmonitor = "touch PWNED"\n';

const opened = closeAfterEach();

/** A gateway on a git repository holding `.env` files, in `mode`. */
async function serve(mode: string, policy: object = {}): Promise<{ gateway: ServedGateway; mcp: Client; gitConfig: string }> {
  const files = { '.env': `${SECRET}\n`, '.env.local': `${SECRET}\n`, '.env.example': 'TOKEN=\n', 'notes.md': 'first\n' };
  const gateway = await serveGateway({ scope: 'workspace-write', mode, policy }, { files });
  opened.gateway(gateway);
  execFileSync('git', ['init', '-q'], { cwd: gateway.workspace });
  mkdirSync(join(gateway.workspace, 'config'));
  writeFileSync(join(gateway.workspace, 'config', '.env.production'), `${SECRET}\n`);
  const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
  opened.client(client);
  return { gateway, mcp: client, gitConfig: readFileSync(join(gateway.workspace, '.git', 'config'), 'utf8') };
}

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

describe('attack: a link inside the workspace leads to a protected file', () => {
  it.each([
    ['vendor -> .git', 'vendor', '.git', 'vendor/config', '.git/config'],
    ['envlink -> .env', 'envlink', '.env', 'envlink', '.env'],
  ])('accept-edits does not approve a write through %s: a person sees the real target, and a rejection leaves it unchanged', async (_name, link, to, requested, real) => {
    const { gateway, mcp } = await serve('accept-edits');
    symlinkSync(to, join(gateway.workspace, link));
    const before = readFileSync(join(gateway.workspace, real), 'utf8');
    const call = mcp.callTool({ name: 'write_file', arguments: { path: requested, content: PAYLOAD } });
    const approval = await pendingApproval(gateway, 'write_file');
    expect(approval.target?.files[0]).toMatchObject({ path: real, requested, flags: expect.arrayContaining(['protected', 'link']) as unknown });
    expect(approval.reasons.protectedPath).toBe(true);
    await decide(gateway, approval.id, 'reject');
    expect((await call).isError).toBe(true);
    expect(readFileSync(join(gateway.workspace, real), 'utf8')).toBe(before);
  });

  it('a link a model made with git plumbing is judged the same way: the write waits for a person', async () => {
    const { gateway, mcp } = await serve('accept-edits');
    // What `git hash-object -w`, `update-index --cacheinfo 120000,…` and `checkout-index` leave behind: a link in the work tree.
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: gateway.workspace, input: '.git' }).toString().trim();
    execFileSync('git', ['update-index', '--add', '--cacheinfo', `120000,${blob},hooks-dir`], { cwd: gateway.workspace });
    execFileSync('git', ['checkout-index', 'hooks-dir'], { cwd: gateway.workspace });
    const call = mcp.callTool({ name: 'write_file', arguments: { path: 'hooks-dir/config', content: PAYLOAD } });
    const approval = await pendingApproval(gateway, 'write_file');
    expect(approval.target?.files[0]?.path).toBe('.git/config');
    await decide(gateway, approval.id, 'reject');
    expect((await call).isError).toBe(true);
    expect(readFileSync(join(gateway.workspace, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
  });
});

describe('attack: secret-bearing files read with no approval', () => {
  it.each(['auto', 'accept-edits'])('in %s, every read of an environment file or repository internals waits for a person and returns nothing when refused', async (mode) => {
    const { gateway, mcp } = await serve(mode);
    mkdirSync(join(gateway.workspace, 'vendor', 'lib'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: join(gateway.workspace, 'vendor', 'lib') });
    symlinkSync('.env', join(gateway.workspace, 'settings.txt'));
    for (const path of ['.env', '.env.local', 'config/.env.production', '.git/config', '.git/HEAD', 'vendor/lib/.git/config', 'settings.txt', '.ENV']) {
      const call = mcp.callTool({ name: 'read_file', arguments: { path } });
      const approval = await pendingApproval(gateway, 'read_file');
      expect(approval.reasons.protectedPath, path).toBe(true);
      await decide(gateway, approval.id, 'reject');
      const result = await call;
      expect(result.isError, path).toBe(true);
      expect(text(result), path).not.toContain('hunter2');
      expect(text(result), path).not.toContain('repositoryformatversion');
    }
  });

  it('an ordinary file reads at once in auto, and so does a protected file the config lets be read; writing it still asks', async () => {
    const { gateway, mcp } = await serve('auto', { readableProtectedPaths: ['.env.example'] });
    expect(text(await mcp.callTool({ name: 'read_file', arguments: { path: 'notes.md' } }))).toContain('first');
    expect(text(await mcp.callTool({ name: 'read_file', arguments: { path: '.env.example' } }))).toContain('TOKEN=');
    const write = mcp.callTool({ name: 'write_file', arguments: { path: '.env.example', content: SECRET } });
    const approval = await pendingApproval(gateway, 'write_file');
    expect(approval.reasons.protectedPath).toBe(true);
    await decide(gateway, approval.id, 'reject');
    expect((await write).isError).toBe(true);
    expect(readFileSync(join(gateway.workspace, '.env.example'), 'utf8')).toBe('TOKEN=\n');
  });
});

describe('attack: the target is swapped while its approval waits', () => {
  it('a file replaced by a link to .git/config after the card was shown is refused at execution, typed, and .git/config is unchanged', async () => {
    const { gateway, mcp, gitConfig } = await serve('ask');
    const { card, result } = await swapWhileApprovalWaits(gateway, mcp, { name: 'write_file', arguments: { path: 'notes.md', content: PAYLOAD } }, 'notes.md', '.git/config');
    expect(card.target?.files[0]).toMatchObject({ path: 'notes.md', flags: [] });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('target changed');
    expect(readFileSync(join(gateway.workspace, '.git', 'config'), 'utf8')).toBe(gitConfig);
  });

  it('a new file whose folder became a link to .git is refused the same way', async () => {
    const { gateway, mcp, gitConfig } = await serve('ask');
    mkdirSync(join(gateway.workspace, 'out'));
    const { card, result } = await swapWhileApprovalWaits(gateway, mcp, { name: 'write_file', arguments: { path: 'out/config', content: PAYLOAD } }, 'out', '.git');
    expect(card.target?.files[0]).toMatchObject({ path: 'out/config', flags: ['new'] });
    expect(result.isError).toBe(true);
    expect(readFileSync(join(gateway.workspace, '.git', 'config'), 'utf8')).toBe(gitConfig);
  });
});

describe('attack: exec-capable forms under a glob, and port 0', () => {
  it('in auto with awk, tar, sort, env, xargs and git globbed, every payload form is refused before anyone is asked and nothing runs; a plain form runs once approved; port 0 and 65536 are refused', async () => {
    const globs = ['awk *', 'tar *', 'sort *', 'env *', 'xargs *', 'git *'];
    const { gateway, mcp, gitConfig } = await serve('auto', { allowedCommandGlobs: globs, allowedDomains: ['allowed.example'] });
    const marker = join(gateway.workspace, 'PWNED');
    const payloads = [
      ['awk', 'BEGIN{system("touch PWNED")}'],
      ['awk', '-v', 'x=1', 'BEGIN{print "x" | "sh"}'],
      ['tar', '-cf', 'out.tar', '--checkpoint=1', '--checkpoint-action=exec=touch PWNED', 'notes.md'],
      ['tar', '-cf', 'out.tar', '--to-command=touch PWNED', 'notes.md'],
      ['tar', '-c', '-I', 'touch PWNED', '-f', 'out.tar', 'notes.md'],
      ['sort', '--compress-program=touch', 'notes.md'],
      ['env', 'sh', '-c', 'touch PWNED'],
      ['env', '-i', 'FOO=1', 'sh', '-c', 'touch PWNED'],
      ['xargs', 'sh', '-c', 'touch PWNED'],
      ['git', 'archive', '-o', 'out.zip', 'HEAD'],
      ['git', '--work-tree=/tmp', 'checkout', '.'],
      ['git', 'config', 'core.fsmonitor', 'touch PWNED'],
      ['git', '-c', 'core.fsmonitor=touch PWNED', 'status'],
    ];
    for (const argv of payloads) {
      const result = await mcp.callTool({ name: 'run_command', arguments: { command: argv } });
      expect(result.isError, argv.join(' ')).toBe(true);
      expect(text(result), argv.join(' ')).toContain('was refused: the');
    }
    // Refused by the floor: no one was asked.
    expect((await gateway.api('/api/approvals')).body).toEqual([]);
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(gateway.workspace, '.git', 'config'), 'utf8')).toBe(gitConfig);
    // A plain form under the same glob goes to a person (auto approves rule-allowed calls only) and runs once approved.
    const plain = mcp.callTool({ name: 'run_command', arguments: { command: ['awk', '{print $1}', 'notes.md'] } });
    await decide(gateway, (await pendingApproval(gateway, 'run_command')).id, 'once');
    expect(text(await plain)).toContain('first');
    for (const url of ['https://allowed.example:0/', 'https://allowed.example:65536/']) {
      const result = await mcp.callTool({ name: 'http_request', arguments: { url } });
      expect(result.isError, url).toBe(true);
    }
    expect((await gateway.api('/api/approvals')).body).toEqual([]);
  });
});

describe("attack: a short option's attached value names the protected path", () => {
  it('in auto with cp and grep globbed, cp -t.git/hooks and grep -f.env go to a person, who sees the protected path', async () => {
    const { gateway, mcp } = await serve('auto', { allowedCommandGlobs: ['cp *', 'grep *'], allow: ['Bash(cp *)', 'Bash(grep *)'] });
    writeFileSync(join(gateway.workspace, 'pre-commit'), '#!/bin/sh\ntouch PWNED\n');
    // Before, each ran with nobody asked: the floor read `-t.git/hooks` as a folder of that name.
    for (const command of [['cp', '-t.git/hooks', 'pre-commit'], ['grep', '-f.env', 'notes.md']]) {
      const { card, result } = await decideIfAsked(gateway, mcp, 'run_command', { command }, 'reject');
      expect(card, command.join(' ')).toBeDefined();
      expect((result as { isError?: boolean }).isError, command.join(' ')).toBe(true);
    }
    expect(existsSync(join(gateway.workspace, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });
});
