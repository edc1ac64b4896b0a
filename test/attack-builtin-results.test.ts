import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace } from './support/serve-gateway.js';
import { CLI } from './support/spawn-cli.js';

// A built-in's structured value through `toolgate serve` and the MCP SDK client: the text content is bounded by
// the pipeline, and the structured value beside it must be too, or a model whose client reads it gets the whole.

type Result = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: Result): string => (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');
const OUTPUT_LIMIT = 256 * 1024;

describe('attack: a built-in answers with more than the output limit', () => {
  let client: Client;

  beforeAll(async () => {
    const workspace = makeWorkspace(
      { console: { enabled: false }, scope: 'read-only', mode: 'auto', policy: { allow: ['Read(**)'] } },
      {
        'big.log': 'a log line of the build, nothing hidden in it\n'.repeat(45_000),
        'wide.txt': 'ü'.repeat(600_000),
        'small.md': 'small\n',
        ...Object.fromEntries(Array.from({ length: 12_000 }, (_, index) => [`many/a-file-with-a-longer-name-${String(index).padStart(5, '0')}.txt`, 'x'])),
      },
    );
    client = new Client({ name: 'builtin-results', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], cwd: workspace, stderr: 'ignore' }));
    await client.listTools();
  }, 30_000);

  afterAll(async () => {
    await client?.close();
  });

  it('read_file of 2 MB sends a structured value within the limit, its content cut and marked, beside the bounded text', async () => {
    const result = await client.callTool({ name: 'read_file', arguments: { path: 'big.log' } }, undefined, { timeout: 60_000 });
    expect(result.isError).not.toBe(true);
    // Before: `structuredContent.content` carried all 2,070,000 characters to the client.
    const structured = result.structuredContent as { content: string; bytes: number; partial: boolean };
    expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(OUTPUT_LIMIT);
    expect(structured.bytes).toBe(2_070_000);
    expect(structured.content.startsWith('a log line of the build')).toBe(true);
    expect(structured.content).toMatch(/ … \[cut: the structured result exceeds the output limit; the text content has the bounded result\]$/);
    expect(textOf(result).length).toBeLessThan(40_000);
  });

  it('wide characters count as the bytes they take', async () => {
    const result = await client.callTool({ name: 'read_file', arguments: { path: 'wide.txt' } }, undefined, { timeout: 60_000 });
    expect(result.isError).not.toBe(true);
    expect(Buffer.byteLength(JSON.stringify(result.structuredContent))).toBeLessThanOrEqual(OUTPUT_LIMIT);
  });

  it('a structured value of many short strings, which no cut brings under the limit, is not sent: the bounded text is, as an error', async () => {
    const result = await client.callTool({ name: 'list_directory', arguments: { path: 'many' } }, undefined, { timeout: 60_000 });
    // Before: all 12,000 entries went to the client as structuredContent (about 900 KB).
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toMatch(/^\{"entries":\[\{"path":"many\/a-file-with-a-longer-name-\d{5}\.txt"/);
    expect(textOf(result)).toMatch(/full output: spill:/);
    expect(textOf(result)).toMatch(/\[the structured result exceeds 262144 bytes of JSON and was not sent; the text above is the result as bounded\]$/);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(64 * 1024);
  });

  it('held: a value within the limit is sent whole', async () => {
    const result = await client.callTool({ name: 'read_file', arguments: { path: 'small.md' } });
    expect(result.structuredContent).toMatchObject({ content: 'small\n', bytes: 6, partial: false });
  });
});
