import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { processCpuMs } from './support/process-cpu.js';
import { CLI } from './support/spawn-cli.js';

// An untrusted upstream whose schemas ask for `uniqueItems` on arrays of objects, through `toolgate serve --stdio` and
// the MCP SDK client (test/__fixtures__/quadratic-schema-server.mjs). ajv checks it by comparing every item with every
// other, on the gateway's event loop, as it would have run an untrusted `pattern`. Before: a structured value of 20,000
// objects (within the 256 KiB output ceiling) held the event loop about 12 s, every session and upstream with it, and
// 6,000 objects in one call's arguments (within 64 KiB) about a second. An `enum` is checked value by value for each
// item: 40,000 numbers under an enum of 30,000 held it 6.5 s. Combinators multiply the same way: 20,000 objects under
// an `anyOf` of 300 alternatives held it 6 s, a value nested 22 arrays deep under a 2 KB schema whose definitions each
// offer two ways down 12 s (twice that for each level more), and compiling an `anyOf` of 2,000 alternatives at the
// start 8 s, in toolgate's copy of an input schema and in the MCP SDK client's own validator of an output schema.

const COSTLY = join(ROOT, 'test/__fixtures__/costly-schema-server.mjs');

type Result = Awaited<ReturnType<Client['callTool']>>;
const UNGOVERNED = ['unique_out', 'unique_in', 'enum_out', 'wide_out', 'many_out', 'nested_in', 'nested_out', 'scoped_in', 'scoped_out', 'wide_compile', 'wide_output', 'bad_pattern_output', 'tracked_in', 'tracked_out', 'inline_compile'];
let listed: string[] = [];
const nestedValue = (depth: number): unknown => (depth === 0 ? 'a' : [nestedValue(depth - 1)]);
const textOf = (result: Result): string => (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');

describe('attack: an untrusted upstream schema whose check is quadratic', () => {
  let client: Client;
  let startCpuMs: number;
  let served: ReturnType<typeof attackWorkspace>;

  beforeAll(async () => {
    served = attackWorkspace('toolgate-attack-schema-cost', {
      // Not trusted; not governed, so each call runs without a person and only its validation is on trial.
      qs: { command: process.execPath, args: [COSTLY], tools: Object.fromEntries(UNGOVERNED.map((tool) => [tool, { governed: false }])) },
    });
    client = new Client({ name: 'schema-cost', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' });
    await client.connect(transport);
    // Listed past `listTools`, which compiles every output schema in this process, as costly here as in the gateway.
    listed = (await client.request({ method: 'tools/list' }, ListToolsResultSchema)).tools.map((tool) => tool.name);
    // The gateway's own CPU time to start and list: what it compiled, however busy the machine's other processes keep it.
    startCpuMs = processCpuMs(transport.pid as number);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
  });

  /**
   * A call asked past `callTool`, which checks a structured value against the upstream's own schema in this process:
   * that check, as costly here as it was in the gateway, would hold this process's reading of the answer beside it.
   */
  const callRaw = (name: string, args: Record<string, unknown>) => () => client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, { timeout: 60_000 });

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
    const { result, readMs } = await readBeside(callRaw('mcp_qs_unique_out', { count: 20_000 }));
    expect(result.isError).not.toBe(true);
    expect((result.structuredContent as { x: unknown[] }).x).toHaveLength(20_000);
    expect(readMs).toBeLessThan(2_000);
  }, 60_000);

  it('6,000 distinct objects in the arguments are validated without holding the gateway', async () => {
    const x = Array.from({ length: 6_000 }, (_, index) => ({ a: index }));
    const { result, readMs } = await readBeside(callRaw('mcp_qs_unique_in', { x }));
    expect(textOf(result)).toBe('unique_in ok');
    expect(readMs).toBeLessThan(500);
  }, 60_000);

  it('40,000 numbers under an enum of 30,000 are validated without holding the gateway', async () => {
    const { result, readMs } = await readBeside(callRaw('mcp_qs_enum_out', {}));
    expect((result.structuredContent as { x: unknown[] }).x).toHaveLength(40_000);
    expect(readMs).toBeLessThan(2_000);
  }, 60_000);

  it('an anyOf of 2,000 alternatives does not hold the start: the tool is listed, its schema the upstream\'s', async () => {
    expect(listed).toContain('mcp_qs_wide_compile');
    expect(listed).toContain('mcp_qs_wide_output');
    const tool = (await client.request({ method: 'tools/list' }, ListToolsResultSchema)).tools.find((entry) => entry.name === 'mcp_qs_wide_compile');
    expect((tool?.inputSchema.properties?.x as { anyOf: unknown[] }).anyOf).toHaveLength(2_000);
    expect(startCpuMs).toBeLessThan(5_000);
  });

  it('a client that compiles every output schema it lists gets, at once, the copies the gateway checks', async () => {
    const other = new Client({ name: 'schema-cost-lister', version: '1.0.0' });
    await other.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }));
    try {
      const started = performance.now();
      // The SDK's `listTools` compiles each output schema: a pattern no engine reads failed it whole, an anyOf of 2,000 took seconds.
      const { tools } = await other.listTools();
      expect(performance.now() - started).toBeLessThan(3_000);
      const outputOf = (name: string) => tools.find((tool) => tool.name === name)?.outputSchema;
      expect(outputOf('mcp_qs_wide_output')).toEqual({ type: 'object' });
      expect(outputOf('mcp_qs_bad_pattern_output')).toEqual({ type: 'object', properties: { x: { type: 'string' } } });
      expect(outputOf('mcp_qs_unique_out')).toEqual({ type: 'object', properties: { x: { type: 'array' } } });
    } finally {
      await other.close();
    }
  });

  it('an output schema no validator compiles leaves that tool out, and the rest of the listing stands', () => {
    expect(listed).not.toContain('mcp_qs_broken_output');
    expect(listed).toEqual(expect.arrayContaining(UNGOVERNED.map((tool) => `mcp_qs_${tool}`)));
  });

  it('20,000 objects under an anyOf of 300 alternatives pass without holding the gateway', async () => {
    const { result, readMs } = await readBeside(callRaw('mcp_qs_wide_out', {}));
    expect(result.isError).not.toBe(true);
    expect((result.structuredContent as { x: unknown[] }).x).toHaveLength(20_000);
    expect(readMs).toBeLessThan(2_000);
  }, 60_000);

  it('20,000 objects under an anyOf of 40 alternatives are refused as too costly to check, at once', async () => {
    const { result, readMs } = await readBeside(callRaw('mcp_qs_many_out', {}));
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/too costly to check/);
    expect(result.structuredContent).toBeUndefined();
    expect(readMs).toBeLessThan(500);
  }, 60_000);

  it('arguments nested 22 arrays deep under definitions that each offer two ways down reach the upstream at once', async () => {
    const { result, readMs } = await readBeside(callRaw('mcp_qs_nested_in', { x: nestedValue(22) }));
    expect(textOf(result)).toBe('nested_in ok');
    expect(readMs).toBeLessThan(500);
  }, 60_000);

  it('a result nested 22 arrays deep under such definitions arrives at once', async () => {
    const { result, readMs } = await readBeside(callRaw('mcp_qs_nested_out', { depth: 22 }));
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.structuredContent)).toBe(JSON.stringify({ x: nestedValue(22) }));
    expect(readMs).toBeLessThan(500);
  }, 60_000);

  // A `$ref` inside a subschema with an `$id` of its own resolves against that `$id`: reached by a pointer through it,
  // its definitions are not the root's. Before: checked as the root's `{}` (3 checks a node), a value 22 arrays deep
  // held the event loop about 17 s.
  it('arguments nested 22 arrays deep under definitions in a subschema with its own $id reach the upstream at once', async () => {
    const { result, readMs } = await readBeside(callRaw('mcp_qs_scoped_in', { x: nestedValue(22) }));
    expect(textOf(result)).toBe('scoped_in ok');
    expect(readMs).toBeLessThan(500);
  }, 60_000);

  it('a result nested 22 arrays deep under definitions in a subschema with its own $id arrives at once', async () => {
    const { result, readMs } = await readBeside(callRaw('mcp_qs_scoped_out', { depth: 22 }));
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.structuredContent)).toBe(JSON.stringify({ x: nestedValue(22) }));
    expect(readMs).toBeLessThan(500);
  }, 60_000);

  // In 2019-09 and 2020-12, ajv records which names each object's check evaluated (for `unevaluatedProperties`, used
  // or not), name by name, when an `anyOf` makes that set known only as the value is checked. Before: 20,000 empty
  // objects under an `anyOf` of an object of 1,000 names (each `true`: one object, 12 KB) held the event loop 13 s.
  it('20,000 objects in the arguments under a 2019-09 anyOf of an object of 1,000 names reach the upstream at once', async () => {
    const { result, readMs } = await readBeside(callRaw('mcp_qs_tracked_in', { x: Array.from({ length: 20_000 }, () => ({})) }));
    expect(textOf(result)).toBe('tracked_in ok');
    expect(readMs).toBeLessThan(500);
  }, 60_000);

  it('a result of 20,000 objects under a 2019-09 anyOf of an object of 1,000 names arrives at once', async () => {
    const { result, readMs } = await readBeside(callRaw('mcp_qs_tracked_out', {}));
    expect(result.isError).not.toBe(true);
    expect((result.structuredContent as { x: unknown[] }).x).toHaveLength(20_000);
    expect(readMs).toBeLessThan(500);
  }, 60_000);

  // ajv writes a definition without references of its own out again at every `$ref` to it. Before: a definition of
  // 300 properties named from 300 properties (18 KB) took 40 s and 1.2 GB to compile, at every start.
  it('a definition of 300 properties named by $ref from 300 properties does not hold the start, and is checked', async () => {
    expect(listed).toContain('mcp_qs_inline_compile');
    expect(startCpuMs).toBeLessThan(5_000);
    const refused = await callRaw('mcp_qs_inline_compile', { p0: { q0: 1 } })();
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/p0/);
    expect(textOf(await callRaw('mcp_qs_inline_compile', { p0: { q0: 'a' } })())).toBe('inline_compile ok');
  }, 60_000);
});
