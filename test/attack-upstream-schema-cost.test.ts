import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { CLI } from './support/spawn-cli.js';

// An untrusted upstream whose schemas ask for `uniqueItems` on arrays of objects, through `toolgate serve --stdio` and
// the MCP SDK client (test/__fixtures__/quadratic-schema-server.mjs). ajv checks it by comparing every item with every
// other, on the gateway's event loop, as it would have run an untrusted `pattern`. Before: a structured value of 20,000
// objects (within the 256 KiB output ceiling) held the event loop about 12 s, every session and upstream with it, and
// 6,000 objects in one call's arguments (within 64 KiB) about a second. An `enum` is checked value by value for each
// item: 40,000 numbers under an enum of 30,000 held it 6.5 s.

const QUADRATIC = join(ROOT, 'test/__fixtures__/quadratic-schema-server.mjs');

type Result = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: Result): string => (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');

describe('attack: an untrusted upstream schema whose check is quadratic', () => {
  let client: Client;

  beforeAll(async () => {
    const served = attackWorkspace('toolgate-attack-schema-cost', {
      // Not trusted; not governed, so each call runs without a person and only its validation is on trial.
      qs: { command: process.execPath, args: [QUADRATIC], tools: { unique_out: { governed: false }, unique_in: { governed: false }, enum_out: { governed: false } } },
    });
    client = new Client({ name: 'schema-cost', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }));
  }, 30_000);

  afterAll(async () => {
    await client?.close();
  });

  /** How long a read of a small file waits while `call` runs beside it. */
  async function readBeside(call: () => Promise<Result>): Promise<{ result: Result; readMs: number }> {
    const running = call();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const started = performance.now();
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } });
    const readMs = performance.now() - started;
    expect(textOf(read)).toContain('inside');
    return { result: await running, readMs };
  }

  it('a structured value of 20,000 distinct objects is validated without holding the gateway', async () => {
    const { result, readMs } = await readBeside(() => client.callTool({ name: 'mcp_qs_unique_out', arguments: { count: 20_000 } }, undefined, { timeout: 60_000 }));
    expect(result.isError).not.toBe(true);
    expect((result.structuredContent as { x: unknown[] }).x).toHaveLength(20_000);
    expect(readMs).toBeLessThan(2_000);
  }, 60_000);

  it('6,000 distinct objects in the arguments are validated without holding the gateway', async () => {
    const x = Array.from({ length: 6_000 }, (_, index) => ({ a: index }));
    const { result, readMs } = await readBeside(() => client.callTool({ name: 'mcp_qs_unique_in', arguments: { x } }, undefined, { timeout: 60_000 }));
    expect(textOf(result)).toBe('unique_in ok');
    expect(readMs).toBeLessThan(500);
  }, 60_000);

  it('40,000 numbers under an enum of 30,000 are validated without holding the gateway', async () => {
    const { result, readMs } = await readBeside(() => client.callTool({ name: 'mcp_qs_enum_out', arguments: {} }, undefined, { timeout: 60_000 }));
    expect((result.structuredContent as { x: unknown[] }).x).toHaveLength(40_000);
    expect(readMs).toBeLessThan(2_000);
  }, 60_000);
});
