import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { processCpuMs } from './support/process-cpu.js';
import { CLI } from './support/spawn-cli.js';

// An untrusted upstream that lists 60 tools, each schema within the 1,000 objects toolgate compiles (995 string
// properties, about half a second of ajv's compilation each), 30 times the 2,000 one listing compiles
// (test/__fixtures__/many-schemas-server.mjs), through `toolgate serve --stdio` and the MCP SDK client. Each bound
// holds for one schema; their sum is the gateway's to bound. Before: 300 such tools, within the 8 MiB a listing may
// take, held the gateway's start 300 s, past the upstream's 30 s handshake timeout, so none of its tools was served,
// and every retry compiled them all again.

const MANY = join(ROOT, 'test/__fixtures__/many-schemas-server.mjs');
type Listed = Awaited<ReturnType<Client['listTools']>>['tools'];
/** Every tool the gateway lists, page after page. */
async function listAll(client: Client): Promise<Listed> {
  const tools: Listed = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: 600_000 });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
const textOf = (result: Awaited<ReturnType<Client['callTool']>>): string => (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');

/**
 * The gateway over the fixture started with `args`, connected and listed whole, and the CPU time its own process
 * spent on that: what it compiled, however busy the machine's other processes keep it.
 */
async function serveMany(workspace: string, args: readonly string[], count: number, tools: readonly string[]): Promise<{ client: Client; pid: number; startCpuMs: number; listed: string[] }> {
  const served = attackWorkspace(workspace, {
    many: { command: process.execPath, args: [MANY, ...args], env: { TOOLS: String(count) }, tools: Object.fromEntries(tools.map((tool) => [tool, { governed: false }])) },
  });
  const client = new Client({ name: 'schema-count', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' });
  await client.connect(transport, { timeout: 600_000 });
  const listed = (await listAll(client)).map((tool) => tool.name);
  const pid = transport.pid as number;
  return { client, pid, startCpuMs: processCpuMs(pid), listed };
}

describe('attack: an untrusted upstream listing many schemas, each just within the bound', () => {
  let client: Client;
  let pid: number;
  let startCpuMs: number;
  let listed: string[] = [];

  beforeAll(async () => {
    ({ client, pid, startCpuMs, listed } = await serveMany('toolgate-attack-schema-count', [], 60, ['relist', 'wide_0', 'wide_59']));
  }, 600_000);

  afterAll(async () => {
    await client?.close();
  });

  it('the gateway starts at once, every tool listed with its schema the upstream\'s, and each still callable', async () => {
    expect(listed).toContain('mcp_many_wide_59');
    const tool = (await listAll(client)).find((entry) => entry.name === 'mcp_many_wide_0');
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toHaveLength(995);
    // Compiled whole, the 60 would take about 30 s; the listing's 1.4 MiB are still digested, pinned and served.
    expect(startCpuMs, `the start took ${Math.round(startCpuMs)} ms of CPU time`).toBeLessThan(10_000);
    expect(textOf(await client.callTool({ name: 'mcp_many_wide_0', arguments: { p0: 'a' } }))).toBe('wide_0 ok');
    expect(textOf(await client.callTool({ name: 'mcp_many_wide_59', arguments: { p59: 'a' } }))).toBe('wide_59 ok');
  }, 60_000);

  it('a listing the upstream sends again, every tool renamed, costs the gateway no more than its bound to compile', async () => {
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const before = processCpuMs(pid);
    await client.callTool({ name: 'mcp_many_relist', arguments: {} });
    await changed;
    // The gateway's own CPU time from the call to its new listing: compiled whole, the 60 new names would take about
    // 30 s; what remains is reading, digesting, pinning and serving 1.4 MiB of definitions (about 3 s here).
    const spent = processCpuMs(pid) - before;
    expect(spent, `the new listing took ${Math.round(spent)} ms of CPU time`).toBeLessThan(10_000);
    expect((await listAll(client)).map((tool) => tool.name)).toContain('mcp_many_again_59');
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } }, undefined, { timeout: 600_000 });
    expect(textOf(read)).toContain('inside');
  }, 600_000);
});

// The same listing with 995 properties each `false` one level down: no object or array, so counted as none, yet ajv
// compiles a check for each (about 90 ms a tool). Before: each counted five objects, all 300 were compiled, and the
// start took about 20 s (3 s since).
describe('attack: an untrusted upstream listing many schemas of properties that are each false', () => {
  let client: Client;
  let startCpuMs: number;
  let listed: string[] = [];

  beforeAll(async () => {
    ({ client, startCpuMs, listed } = await serveMany('toolgate-attack-schema-count-false', ['false'], 300, ['wide_0', 'wide_299']));
  }, 600_000);

  afterAll(async () => {
    await client?.close();
  });

  it('the gateway starts at once, every tool listed and callable', async () => {
    expect(listed).toContain('mcp_many_wide_299');
    expect(startCpuMs, `the start took ${Math.round(startCpuMs)} ms of CPU time`).toBeLessThan(8_000);
    expect(textOf(await client.callTool({ name: 'mcp_many_wide_0', arguments: { p0: 'a' } }))).toBe('wide_0 ok');
    expect(textOf(await client.callTool({ name: 'mcp_many_wide_299', arguments: { p299: 'a' } }))).toBe('wide_299 ok');
  }, 60_000);
});
