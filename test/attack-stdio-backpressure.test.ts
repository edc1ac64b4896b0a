import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { connectMcpServers, type McpServerStatus } from '../src/mcp/index.js';
import { ROOT, stdioUpstream } from './fixtures/mcp/helpers.js';
import { CLI } from './support/spawn-cli.js';

/**
 * A stdio peer that does not read what the gateway writes it gets
 * backpressure, not a queue without end; a peer that drips its bytes costs
 * what its bytes weigh. Through the real `toolgate serve --stdio`, with the
 * SDK client where the client behaves and raw stdio where it does not, and
 * upstreams in raw JSON lines (`unruly-upstream.mjs`). Before these bounds,
 * a ping flood took the gateway from about 100 MiB to 4.3 GiB and a V8
 * out-of-memory crash, a client that never read its stdout to 3.5 GiB, and
 * a 6 MB line dripped a byte at a time to 900 MiB.
 */
const SERVE_STDIO_MAIN = join(ROOT, 'dist/mcp/serve-stdio-main.js');
const UNRULY = fileURLToPath(new URL('./fixtures/mcp/unruly-upstream.mjs', import.meta.url));

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A new workspace whose configuration serves `servers(folder)`. */
function workspace(servers: (folder: string) => Record<string, unknown> = () => ({})): string {
  const folder = mkdtempSync(join(tmpdir(), 'toolgate-backpressure-'));
  writeFileSync(join(folder, 'notes.md'), 'inside\n');
  writeFileSync(join(folder, 'toolgate.config.json'), JSON.stringify({ servers: servers(folder), console: { enabled: false } }));
  return folder;
}

function readProgress(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const progressOf = (file: string): number => Number(readProgress(file));

/**
 * The count in `file` once it has started and then stood still for a second (the peer waits on its pipe), or
 * as it is after `deadlineMs`: a loaded machine starts the peer late, and a fixed wait read a count not yet begun.
 */
async function untilStill(file: string, deadlineMs: number): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  let last = progressOf(file);
  while (Date.now() < deadline) {
    await sleep(1_000);
    const now = progressOf(file);
    if (now > 0 && now === last) return now;
    last = now;
  }
  return last;
}

/** A gateway over stdio in a new workspace whose one server, `name`, is the unruly upstream in `env`'s mode, counting what it sent into `progress`. */
async function unrulyGateway(name: string, env: Record<string, string>): Promise<{ gateway: Awaited<ReturnType<typeof gatewayWith>>; progress: string }> {
  const progressIn = (folder: string): string => join(folder, 'progress');
  const folder = workspace((created) => ({ [name]: { command: process.execPath, args: [UNRULY], env: { ...env, PROGRESS: progressIn(created) }, trust: 'annotations' } }));
  return { gateway: await gatewayWith(folder), progress: progressIn(folder) };
}

async function gatewayWith(folder: string): Promise<{ client: Client; pid: number; stderr: () => string }> {
  const client = new Client({ name: 'backpressure', version: '1' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], cwd: folder, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await client.connect(transport);
  return { client, pid: transport.pid as number, stderr: () => stderr };
}

describe('a stdio upstream that does not read what the gateway writes it', () => {
  it('blocks itself when it floods the gateway with pings: the gateway stops reading it, stays small and keeps serving', async () => {
    const { gateway, progress } = await unrulyGateway('pf', { MODE: 'pingflood', PINGS: '3000000' });
    try {
      expect((await gateway.client.listTools()).tools.map((tool) => tool.name)).toContain('mcp_pf_go');
      const before = rssMiB(gateway.pid);
      void gateway.client.callTool({ name: 'mcp_pf_go', arguments: {} }, undefined, { timeout: 60_000 }).catch(() => undefined);
      const sent = await untilStill(progress, 20_000);
      // Past the pause mark (1 MiB of answers, about 23,000 pings) the gateway reads nothing more from it: its pipe
      // fills and it waits. Unbounded, the gateway read over 100,000 in 3 s and grew by hundreds of MiB, and the count
      // never stood still.
      expect(sent).toBeLessThan(60_000);
      expect(rssMiB(gateway.pid) - before).toBeLessThan(120);
      const started = Date.now();
      const read = await gateway.client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } });
      expect(JSON.stringify(read.content)).toContain('inside');
      expect(Date.now() - started).toBeLessThan(2_000);
      await sleep(1_000);
      expect(progressOf(progress)).toBe(sent);
    } finally {
      await gateway.client.close();
    }
  }, 45_000);

  it('is closed past maxUnreadBytes, as if it had exited: its calls fail typed, it is reported down with why, and retried', async () => {
    const down: McpServerStatus[] = [];
    const progress = join(mkdtempSync(join(tmpdir(), 'toolgate-backpressure-')), 'progress');
    const connection = await connectMcpServers({
      servers: [{ name: 'deaf', transport: 'stdio', command: process.execPath, args: [UNRULY], env: { MODE: 'deaf', PROGRESS: progress }, maxUnreadBytes: 64 * 1024, timeoutMs: 30_000 }],
      onEvent: (event, payload) => {
        if (event === 'server-down') down.push(payload as McpServerStatus);
      },
    });
    try {
      // It stops reading; every call after that is written to a pipe nobody reads.
      void connection.capability.call({ server: 'deaf', tool: 'go', arguments: {} }).catch(() => undefined);
      // Written once it has stopped: what it read after `go` is then at most one chunk, and the rest stays unread.
      while (readProgress(progress) !== 'true') await sleep(20);
      const text = 'y'.repeat(32 * 1024);
      const calls = Array.from({ length: 12 }, () => connection.capability.call({ server: 'deaf', tool: 'echo', arguments: { text } }).then(() => 'answered', (error: unknown) => error));
      const started = Date.now();
      const outcomes = await Promise.all(calls);
      // Closed at once, not after the calls' timeout.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(outcomes.some((outcome) => outcome === 'answered')).toBe(false);
      expect(outcomes[outcomes.length - 1]).toMatchObject({ code: expect.stringMatching(/^(EXECUTION_FAILED|TOOL_UNAVAILABLE)$/) });
      expect(down).toHaveLength(1);
      expect(down[0]?.error).toMatch(/it left more than 64 KiB of the gateway's messages unread/);
      expect(down[0]?.error).not.toContain(text.slice(0, 100));
      expect(down[0]?.nextRetryAt).toBeGreaterThan(Date.now() - 5_000);
      await expect(connection.capability.call({ server: 'deaf', tool: 'echo', arguments: { text: 'later' } })).rejects.toMatchObject({ code: 'TOOL_UNAVAILABLE' });
    } finally {
      await connection.close();
    }
  }, 30_000);
});

describe('a stdio upstream that drips an unterminated line a byte at a time', () => {
  it('costs the gateway about the bytes it sent, not a chunk object for each', async () => {
    const { gateway, progress } = await unrulyGateway('dr', { MODE: 'drip', DRIP: '800000' });
    try {
      await gateway.client.listTools();
      const before = rssMiB(gateway.pid);
      void gateway.client.callTool({ name: 'mcp_dr_go', arguments: {} }, undefined, { timeout: 60_000 }).catch(() => undefined);
      const deadline = Date.now() + 20_000;
      while (progressOf(progress) < 800_000 && Date.now() < deadline) await sleep(100);
      expect(progressOf(progress)).toBe(800_000);
      await sleep(300);
      // 800 KB dripped: kept as they came, its chunks cost the gateway about 50 MiB.
      expect(rssMiB(gateway.pid) - before).toBeLessThan(24);
    } finally {
      await gateway.client.close();
    }
  }, 40_000);
});

describe('a stdio client that does not read the gateway’s stdout', () => {
  function rawGateway(folder: string): ChildProcessWithoutNullStreams {
    return spawn(process.execPath, [CLI, 'serve', '--stdio'], { cwd: folder, stdio: ['pipe', 'pipe', 'pipe'] });
  }
  const request = (id: number, method: string): string => `${JSON.stringify({ jsonrpc: '2.0', id, method, ...(method === 'initialize' ? { params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } } : { params: {} }) })}\n`;

  async function initialized(child: ChildProcessWithoutNullStreams): Promise<void> {
    const answered = new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdin.write(request(0, 'initialize'));
    await answered;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  it('stops being read while it does not read, stays small, and gets every answer once it reads', async () => {
    const child = rawGateway(workspace());
    try {
      await initialized(child);
      child.stdout.pause();
      await sleep(200);
      const before = rssMiB(child.pid as number);
      const total = 200_000;
      let text = '';
      for (let id = 1; id <= total; id += 1) {
        text += request(id, 'ping');
        if (id % 1000 === 0 || id === total) {
          child.stdin.write(text);
          text = '';
        }
      }
      const length = request(total, 'ping').length * total;
      await sleep(2_000);
      // The gateway stopped reading: most of the requests are still waiting on this side of the pipe.
      expect(child.stdin.writableLength).toBeGreaterThan(length / 2);
      expect(rssMiB(child.pid as number) - before).toBeLessThan(80);
      expect(child.exitCode).toBeNull();
      // Once it reads, every request is answered: backpressure, not a deadlock.
      let answered = 0;
      let pending = '';
      const done = new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          pending += chunk.toString('utf8');
          const lines = pending.split('\n');
          pending = lines.pop() as string;
          answered += lines.length;
          if (answered >= total) resolve();
        });
      });
      child.stdout.resume();
      await done;
      expect(answered).toBe(total);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it('ends the gateway, as the end of its stdin does, once it leaves more than maxUnreadBytes unread', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolgate-backpressure-'));
    const config = join(folder, 'gateway.json');
    writeFileSync(config, JSON.stringify({ servers: [stdioUpstream('fx')], maxUnreadBytes: 64 * 1024 }));
    const child = spawn(process.execPath, [SERVE_STDIO_MAIN, config], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      await initialized(child);
      child.stdout.pause();
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // What was read before the pause mark (16 KiB here) is answered whole: a chunk of tools/list requests is enough.
      let text = '';
      for (let id = 1; id <= 2_000; id += 1) text += request(id, 'tools/list');
      child.stdin.on('error', () => undefined);
      child.stdin.write(text);
      const code = await Promise.race([exited, sleep(15_000).then(() => 'running' as const)]);
      expect(code).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
