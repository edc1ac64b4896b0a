import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { UPSTREAM } from './fixtures/mcp/helpers.js';
import { CLI } from './support/spawn-cli.js';

/**
 * A model that asks for many calls at once gets them run a few at a time,
 * through the real `toolgate serve --stdio` and the SDK client. Every call
 * holds its whole result while it is rendered and bounded; before the
 * gateway bounded the calls it runs at once, 300 parallel `read_file`s of a
 * 10 MB file took it from 110 MiB to 4.8 GiB and answered none in two
 * minutes on a two-core machine.
 */
function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

/** A workspace holding `big.txt` (3 MB of short lines) and a configuration with `limits` (and more). */
function workspace(limits: Record<string, number> = {}, more: Record<string, unknown> = {}): string {
  const folder = mkdtempSync(join(tmpdir(), 'toolgate-call-flood-'));
  writeFileSync(join(folder, 'big.txt'), `${'abcdefghij'.repeat(9)}\n`.repeat(30_000));
  writeFileSync(join(folder, 'toolgate.config.json'), JSON.stringify({ console: { enabled: false }, limits, ...more }));
  return folder;
}

async function serve(folder: string): Promise<{ client: Client; pid: number }> {
  const client = new Client({ name: 'flood', version: '1' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], cwd: folder, stderr: 'ignore' });
  await client.connect(transport);
  return { client, pid: transport.pid as number };
}

const readBig = (client: Client, signal?: AbortSignal): Promise<CallToolResult> =>
  client.callTool({ name: 'read_file', arguments: { path: 'big.txt' } }, undefined, { timeout: 120_000, ...(signal === undefined ? {} : { signal }) }) as Promise<CallToolResult>;

const textOf = (result: CallToolResult): string => result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

/** The fixture's `slow` with steps 0 answers only once cancelled: a server that hangs, or keeps each call alive with progress. */
const HANGING = { command: process.execPath, args: [UPSTREAM], trust: 'annotations', tools: { slow: { governed: false } } };

/**
 * Twelve calls that never answer, spread over `names`, then a `read_file`:
 * with every place held by the hanging calls, the read waited for the
 * upstream's 60-second timeout. It must answer at once, and each hanging
 * call leave when the client cancels it.
 */
async function readBesideHangingCalls(servers: Record<string, unknown>, names: readonly string[]): Promise<void> {
  const { client } = await serve(workspace({}, { servers }));
  const stop = new AbortController();
  try {
    const hanging = Array.from({ length: 12 }, (_, index) =>
      client.callTool({ name: names[index % names.length] as string, arguments: { steps: 0, every: 10 } }, undefined, { signal: stop.signal, timeout: 120_000 }).then(
        () => 'answered',
        () => 'cancelled',
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const read = (await client.callTool({ name: 'read_file', arguments: { path: 'big.txt' } }, undefined, { timeout: 10_000 })) as CallToolResult;
    expect(textOf(read)).toContain('abcdefghij');
    stop.abort();
    expect(await Promise.all(hanging)).toEqual(Array.from({ length: 12 }, () => 'cancelled'));
  } finally {
    await client.close();
  }
}

describe('a flood of parallel tool calls through toolgate serve', () => {
  it('runs 60 parallel reads of a 3 MB file eight at a time: every one answered, the gateway under 700 MiB', async () => {
    const { client, pid } = await serve(workspace());
    try {
      const before = rssMiB(pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 10);
      const results = await Promise.all(Array.from({ length: 60 }, () => readBig(client)));
      clearInterval(sampler);
      expect(results.filter((result) => result.isError !== true && textOf(result).includes('abcdefghij'))).toHaveLength(60);
      // Unbounded, these 60 calls held about 40 MiB each at once: past 2 GiB.
      expect(peak).toBeLessThan(700);
      expect(peak - before).toBeGreaterThan(20);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('refuses at once the calls past those running and waiting, saying to retry; the ones it took all answer', async () => {
    const { client } = await serve(workspace({ maxConcurrentCalls: 1, maxQueuedCalls: 2 }));
    try {
      const results = await Promise.all(Array.from({ length: 8 }, () => readBig(client)));
      const refused = results.filter((result) => result.isError === true);
      const read = results.filter((result) => result.isError !== true);
      // The eight arrive together: one runs, two wait, five are refused before anything of theirs runs.
      expect(refused).toHaveLength(5);
      for (const result of refused) expect(textOf(result)).toContain('was not run: 1 call is running and 2 more are waiting their turn. Retry once some have finished.');
      expect(read.every((result) => textOf(result).includes('abcdefghij'))).toBe(true);
      // The places came back: a later call runs.
      expect(textOf(await readBig(client))).toContain('abcdefghij');
    } finally {
      await client.close();
    }
  }, 120_000);

  it('lets a client cancel a call that waits its turn: it leaves the line, and the places still serve the others', async () => {
    const { client } = await serve(workspace({ maxConcurrentCalls: 1 }));
    try {
      const running = readBig(client);
      const stop = new AbortController();
      const cancelled = readBig(client, stop.signal).then(
        () => 'answered',
        () => 'cancelled',
      );
      const after = readBig(client);
      stop.abort();
      expect(await cancelled).toBe('cancelled');
      const results = await Promise.all([running, after]);
      expect(results.every((result) => result.isError !== true && textOf(result).includes('abcdefghij'))).toBe(true);
      expect(textOf(await readBig(client))).toContain('abcdefghij');
    } finally {
      await client.close();
    }
  }, 120_000);

  it('keeps places for the other tools while an upstream never answers: its calls take at most half of them', async () => {
    await readBesideHangingCalls({ fx: HANGING }, ['mcp_fx_slow']);
  }, 60_000);

  it('keeps places for the other tools while two upstreams never answer: their calls together leave one free', async () => {
    // Two configured servers that hang (the same fixture twice): each took its half, and together every place.
    await readBesideHangingCalls({ fx: HANGING, fy: HANGING }, ['mcp_fx_slow', 'mcp_fy_slow']);
  }, 60_000);

  it('journals a large read\'s content and receipt, not the file: 20 reads of a 3 MB file add under 4 MiB to the journal', async () => {
    const folder = workspace();
    const { client } = await serve(folder);
    const journalBytes = (): number => ['journal.db', 'journal.db-wal'].reduce((total, name) => total + (statSync(join(folder, '.toolgate', name), { throwIfNoEntry: false })?.size ?? 0), 0);
    try {
      const before = journalBytes();
      const results = await Promise.all(Array.from({ length: 20 }, () => readBig(client)));
      expect(results.every((result) => result.isError !== true)).toBe(true);
      // Each result's value held the whole file: recorded whole, these reads wrote 60 MB to the journal.
      expect(journalBytes() - before).toBeLessThan(4 * 1024 * 1024);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('refuses a limit that is not a positive integer when the gateway starts', async () => {
    const folder = workspace({ maxConcurrentCalls: 0 });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], cwd: folder, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await expect(new Client({ name: 'flood', version: '1' }).connect(transport)).rejects.toThrow();
    expect(stderr).toMatch(/limits\.maxConcurrentCalls: expected must be >= 1/);
  }, 60_000);
});
