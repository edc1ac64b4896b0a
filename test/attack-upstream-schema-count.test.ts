import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { CLI } from './support/spawn-cli.js';

// An untrusted upstream that lists 300 tools, each schema within the 1,000 objects toolgate compiles (995 string
// properties, about half a second of ajv's compilation each), all within the 8 MiB a listing may take
// (test/__fixtures__/many-schemas-server.mjs), through `toolgate serve --stdio` and the MCP SDK client. Each bound
// holds for one schema; their sum is the gateway's to bound. Before: the gateway's start took 300 s, past the
// upstream's 30 s handshake timeout, so none of its tools was served, and every retry compiled them all again.

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

describe('attack: an untrusted upstream listing many schemas, each just within the bound', () => {
  let client: Client;
  let startMs: number;
  let listed: string[] = [];

  beforeAll(async () => {
    const served = attackWorkspace('toolgate-attack-schema-count', {
      many: { command: process.execPath, args: [MANY], tools: { relist: { governed: false }, wide_0: { governed: false }, wide_299: { governed: false } } },
    });
    client = new Client({ name: 'schema-count', version: '1.0.0' });
    const started = performance.now();
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }), { timeout: 600_000 });
    listed = (await listAll(client)).map((tool) => tool.name);
    startMs = performance.now() - started;
  }, 600_000);

  afterAll(async () => {
    await client?.close();
  });

  it('the gateway starts at once, every tool listed with its schema the upstream\'s, and each still callable', async () => {
    expect(listed).toContain('mcp_many_wide_299');
    const tool = (await listAll(client)).find((entry) => entry.name === 'mcp_many_wide_0');
    expect(Object.keys(tool?.inputSchema.properties ?? {})).toHaveLength(995);
    // The listing's 7 MiB are still digested, pinned and served: about 7 s of it on a loaded machine, none of it ajv's.
    expect(startMs, `the start took ${Math.round(startMs)} ms`).toBeLessThan(30_000);
    expect(textOf(await client.callTool({ name: 'mcp_many_wide_0', arguments: { p0: 'a' } }))).toBe('wide_0 ok');
    expect(textOf(await client.callTool({ name: 'mcp_many_wide_299', arguments: { p299: 'a' } }))).toBe('wide_299 ok');
  }, 60_000);

  it('a listing the upstream asks for again does not hold the gateway', async () => {
    await client.callTool({ name: 'mcp_many_relist', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = performance.now();
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } }, undefined, { timeout: 600_000 });
    expect(textOf(read)).toContain('inside');
    const readMs = performance.now() - started;
    expect(readMs, `the read waited ${Math.round(readMs)} ms`).toBeLessThan(2_000);
  }, 600_000);
});

// The same listing with 995 properties each `false` one level down: no object or array, so counted as none, yet ajv
// compiles a check for each (about 90 ms a tool). Before: each counted five objects, all 300 were compiled, and the
// start took about 20 s (3 s since).
describe('attack: an untrusted upstream listing many schemas of properties that are each false', () => {
  let client: Client;
  let startMs: number;
  let listed: string[] = [];

  beforeAll(async () => {
    const served = attackWorkspace('toolgate-attack-schema-count-false', {
      many: { command: process.execPath, args: [MANY, 'false'], tools: { wide_0: { governed: false }, wide_299: { governed: false } } },
    });
    client = new Client({ name: 'schema-count', version: '1.0.0' });
    const started = performance.now();
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }), { timeout: 600_000 });
    listed = (await listAll(client)).map((tool) => tool.name);
    startMs = performance.now() - started;
  }, 600_000);

  afterAll(async () => {
    await client?.close();
  });

  it('the gateway starts at once, every tool listed and callable', async () => {
    expect(listed).toContain('mcp_many_wide_299');
    expect(startMs, `the start took ${Math.round(startMs)} ms`).toBeLessThan(8_000);
    expect(textOf(await client.callTool({ name: 'mcp_many_wide_0', arguments: { p0: 'a' } }))).toBe('wide_0 ok');
    expect(textOf(await client.callTool({ name: 'mcp_many_wide_299', arguments: { p299: 'a' } }))).toBe('wide_299 ok');
  }, 60_000);
});
