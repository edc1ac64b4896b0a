import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { processCpuMs } from './support/process-cpu.js';
import { CLI } from './support/spawn-cli.js';

// A hostile upstream that renames its listing and asks to be listed again as soon as it has answered each listing,
// without end (test/__fixtures__/churning-server.mjs), through `toolgate serve --stdio` and the MCP SDK client, beside
// a quiet upstream of the same kind. Each listing (400 KB here) costs the gateway reading, digesting and pinning what it
// lists, about 300 ms. Before: the gateway listed it again back to back, 13 times in 4 s, with 3.9 s of CPU time in
// those 4 s: one upstream held the gateway's event loop nearly all the time, and its own calls ran against listings it
// had already said were changed.

const CHURNING = join(ROOT, 'test/__fixtures__/churning-server.mjs');
const WINDOW_MS = 4_000;

type Result = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: Result): string => (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** How long `call` took to answer, in milliseconds, and what it answered. */
async function timed(call: () => Promise<Result>): Promise<{ ms: number; text: string }> {
  const started = performance.now();
  const text = textOf(await call());
  return { ms: performance.now() - started, text };
}

describe('attack: an upstream that asks to be listed again after every listing', () => {
  let client: Client | undefined;
  afterAll(async () => {
    await client?.close();
  });

  it('gets a bounded share of the gateway; the other server and the built-in tools answer at once', async () => {
    const listings = join(mkdtempSync(join(tmpdir(), 'toolgate-relist-flood-')), 'listings');
    const served = attackWorkspace('toolgate-attack-relist-flood', {
      churn: { command: process.execPath, args: [CHURNING], env: { ROUNDS: '1000000', TOOLS: '10', DESCRIPTION: '40000', LISTINGS: listings }, trust: 'annotations', timeoutMs: 2_500 },
      calm: { command: process.execPath, args: [CHURNING], trust: 'annotations' },
    });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' });
    client = new Client({ name: 'relist-flood', version: '1.0.0' });
    await client.connect(transport);
    const gateway = client;
    const pid = transport.pid as number;
    expect((await gateway.listTools()).tools.map((tool) => tool.name)).toContain('mcp_calm_echo');

    const cpuBefore = processCpuMs(pid);
    const started = performance.now();
    await gateway.callTool({ name: 'mcp_churn_churn', arguments: {} });
    // Its own calls wait for the listing it keeps announcing, up to its timeout, and then fail: never forever.
    const own = timed(() => gateway.callTool({ name: 'mcp_churn_echo', arguments: {} }, undefined, { timeout: 30_000 }));
    const slowest = { read: 0, calm: 0 };
    while (performance.now() - started < WINDOW_MS) {
      const read = await timed(() => gateway.callTool({ name: 'read_file', arguments: { path: 'notes.md' } }, undefined, { timeout: 30_000 }));
      expect(read.text).toContain('inside');
      const calm = await timed(() => gateway.callTool({ name: 'mcp_calm_echo', arguments: {} }, undefined, { timeout: 30_000 }));
      expect(calm.text).toBe('echo ok');
      slowest.read = Math.max(slowest.read, read.ms);
      slowest.calm = Math.max(slowest.calm, calm.ms);
      await sleep(250);
    }
    const elapsed = performance.now() - started;
    const spent = processCpuMs(pid) - cpuBefore;
    const listed = Number(readFileSync(listings, 'utf8'));
    const answer = await own;
    const report = `${listed} listings, ${Math.round(spent)} ms of CPU in ${Math.round(elapsed)} ms; slowest read_file ${Math.round(slowest.read)} ms, calm echo ${Math.round(slowest.calm)} ms; own call ${Math.round(answer.ms)} ms: ${answer.text}`;
    // One listing at once, then one a second at most (its first at connect is the one counted before `churn`).
    expect(listed, report).toBeLessThanOrEqual(2 + Math.ceil(elapsed / 1_000));
    // At most a fifth of the time after its first listing, which runs at once.
    expect(spent, report).toBeLessThan(elapsed * 0.4);
    expect(slowest.read, report).toBeLessThan(2_000);
    expect(slowest.calm, report).toBeLessThan(2_000);
    expect(answer.text, report).toContain('timed out after 2500 ms');
  }, 60_000);
});
