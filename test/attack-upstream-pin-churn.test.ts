import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { CLI } from './support/spawn-cli.js';

// A hostile upstream that lists its tools under new names on every listing and asks to be listed again at once, through
// `toolgate serve --stdio` and the MCP SDK client (test/__fixtures__/churning-server.mjs). Every new name is a first use,
// pinned with its definition in the workspace's pin file, and every pin check reads that file whole. Before: twelve
// listings of ten tools with 700 KB descriptions grew the pin file past 80 MB, without end, and a file past what one
// string holds can no longer be read, which fails the gateway's next start, every other server with it. Each listing a
// server asks for now waits a second or more after its last (create-refresh-scheduler.ts), so this asks for seven
// listings after the first: unbounded, their pins would take 56 MB.

const CHURNING = join(ROOT, 'test/__fixtures__/churning-server.mjs');
const MB = 1024 * 1024;

type Result = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: Result): string => (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');

describe('attack: an upstream that churns its tool names', () => {
  let client: Client | undefined;
  afterAll(async () => {
    await client?.close();
  });

  it('grows the pin file only up to a bound; the tools past it are withheld, its pinned tools still offered', async () => {
    const served = attackWorkspace('toolgate-attack-pin-churn', { churn: { command: process.execPath, args: [CHURNING], env: { ROUNDS: '7' }, trust: 'annotations' } });
    client = new Client({ name: 'pin-churner', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }));
    const pins = join(served.workspace, '.toolgate', 'mcp-pins.json');
    expect(statSync(pins).size).toBeLessThan(10 * MB);
    await client.callTool({ name: 'mcp_churn_churn', arguments: {} });
    // Seven listings, each answered once the gateway asked for it; the last one's pins are written after it is sent.
    for (let waited = 0; waited < 120_000; waited += 250) {
      if (textOf(await client.callTool({ name: 'mcp_churn_rounds', arguments: {} })) === '8') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(textOf(await client.callTool({ name: 'mcp_churn_rounds', arguments: {} }))).toBe('8');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Unbounded, 56 MB here; now about twice what one listing may hold (16 MiB of definitions), whatever the upstream does.
    expect(statSync(pins).size).toBeLessThan(40 * MB);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    // The newest listing's names came after the bound: withheld for a person, not pinned.
    expect(names.filter((name) => name.startsWith('mcp_churn_t7_'))).toEqual([]);
    expect(names).toContain('mcp_churn_echo');
    expect(textOf(await client.callTool({ name: 'mcp_churn_echo', arguments: {} }))).toBe('echo ok');
  }, 180_000);
});
