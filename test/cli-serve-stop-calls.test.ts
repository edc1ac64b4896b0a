import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { UPSTREAM } from './fixtures/mcp/helpers.js';
import { connectClient, makeWorkspace, serveGateway } from './support/serve-gateway.js';
import { CLI, runCli } from './support/spawn-cli.js';

/*
 * `toolgate serve` stopping while calls run: on SIGTERM, or over stdio when
 * the client goes. Each call is aborted, and its receipt must be written
 * before the journal closes. The gateway closed the journal first: every
 * call still running then left its claim unresolved ("settling a journal
 * claim failed; it stays unresolved"), and an unresolved claim refuses its
 * action after the restart until an operator resolves it by hand.
 */

/** The fixture's `slow` with steps 0 answers only once cancelled; not governed, so it runs without a person. */
const HANGING = { command: process.execPath, args: [UPSTREAM], trust: 'annotations', tools: { slow: { governed: false } } };
const CONFIG = { console: { enabled: false }, scope: 'workspace-write', mode: 'auto', policy: { allowedCommands: [['sleep', '20']], allow: ['Bash(sleep 20)'] }, servers: { up: HANGING } };

/** The journal's unresolved claims, as `toolgate audit unresolved --json` lists them. */
async function unresolved(workspace: string): Promise<unknown[]> {
  const listed = await runCli(['audit', 'unresolved', '--json'], workspace);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as unknown[];
}

/** Three hanging upstream calls, a command that sleeps, and 40 reads of a 2 MB file, left running: some wait for a place, some are bounding their result. */
async function startCalls(client: Client): Promise<void> {
  for (let index = 0; index < 3; index += 1) client.callTool({ name: 'mcp_up_slow', arguments: { steps: 0, every: 10 } }, undefined, { timeout: 60_000 }).catch(() => undefined);
  client.callTool({ name: 'run_command', arguments: { command: ['sleep', '20'] } }, undefined, { timeout: 60_000 }).catch(() => undefined);
  const reads = Array.from({ length: 40 }, () => client.callTool({ name: 'read_file', arguments: { path: 'big.txt' } }, undefined, { timeout: 60_000 }).then(() => 'answered', () => 'failed'));
  // Stopped once the first read is answered: the others are still running or waiting.
  await Promise.race(reads);
}

const BIG = { 'big.txt': `${'x'.repeat(99)}\n`.repeat(20_000) };

describe('toolgate serve stops with calls running', () => {
  it('on SIGTERM, settles every call it aborts before the journal closes: each receipt is written, no claim left unresolved', async () => {
    const gateway = await serveGateway(CONFIG, { files: BIG });
    const { client } = await connectClient(gateway.mcpUrl, 'stopping', undefined, gateway.auth);
    await startCalls(client);
    await gateway.cli.stop();
    expect(await unresolved(gateway.workspace)).toEqual([]);
    expect(gateway.cli.stderr()).not.toContain('unresolved');
    await client.close().catch(() => undefined);
  }, 30_000);

  it('over stdio, when the client goes, settles its calls and exits', async () => {
    const workspace = makeWorkspace(CONFIG, BIG);
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], cwd: workspace, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'leaving', version: '1' });
    await client.connect(transport);
    const pid = transport.pid as number;
    await startCalls(client);
    await client.close();
    // The SDK's close ends stdin and, past a grace period, signals the process: wait for it to be gone either way.
    for (let waited = 0; waited < 10_000 && isRunning(pid); waited += 100) await sleep(100);
    expect(isRunning(pid)).toBe(false);
    expect(stderr).not.toContain('unresolved');
    expect(await unresolved(workspace)).toEqual([]);
  }, 30_000);

  it('over stdio, ends a client that leaves more than limits.maxUnreadBytes unread, and exits though its last write to that client never completes', async () => {
    const workspace = makeWorkspace({ console: { enabled: false }, limits: { maxUnreadBytes: 64 * 1024 } }, BIG);
    writeFileSync(join(workspace, 'small.txt'), 'a\n');
    const child = spawn(process.execPath, [CLI, 'serve', '--stdio'], { cwd: workspace, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const line = (message: object): string => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`;
      const answered = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      child.stdin.write(line({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'deaf', version: '1' } } }));
      await answered;
      child.stdout.pause();
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stdin.on('error', () => undefined);
      // 60 reads of 2 MB, all read before the first answer pauses the input: far more than 64 KiB left unread.
      child.stdin.write([line({ method: 'notifications/initialized' }), ...Array.from({ length: 60 }, (_, id) => line({ id: id + 1, method: 'tools/call', params: { name: 'read_file', arguments: { path: 'big.txt' } } }))].join(''));
      expect(await Promise.race([exited, sleep(15_000).then(() => 'running' as const)])).toBe(0);
      expect(stderr).not.toContain('unresolved');
      expect(await unresolved(workspace)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
