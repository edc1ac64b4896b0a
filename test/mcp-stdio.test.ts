import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, run, UPSTREAM } from './fixtures/mcp/helpers.js';

const MAIN = join(ROOT, 'dist/mcp/serve-stdio-main.js');
const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
let config: string;

beforeAll(async () => {
  expect(existsSync(MAIN), 'build first: npx tsc -p tsconfig.build.json').toBe(true);
  const dir = await mkdtemp(join(tmpdir(), 'toolgate-stdio-'));
  config = join(dir, 'gateway.json');
  await writeFile(config, JSON.stringify({ servers: [{ name: 'fx', transport: 'stdio', command: process.execPath, args: [UPSTREAM], trust: 'annotations', tools: { add: { governed: false } } }], pinFile: join(dir, 'pins.json') }));
});

describe('the stdio gateway (serve-stdio-main) with real clients', () => {
  it('serves the SDK Client over stdio', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, config], stderr: 'ignore' }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('mcp_fx_echo');
      expect(await client.callTool({ name: 'mcp_fx_add', arguments: { a: 20, b: 22 } })).toMatchObject({ structuredContent: { sum: 42 } });
      // Every other tool is governed: with no approver and no client that can elicit, it is refused (fail closed).
      const governed = await client.callTool({ name: 'mcp_fx_big', arguments: { lines: 1 } });
      expect(governed.isError).toBe(true);
      expect(JSON.stringify(governed.content)).toContain('needs an approval');
    } finally {
      await client.close();
    }
  });

  it('answers @modelcontextprotocol/inspector 0.15.0 in CLI mode: tools/list and tools/call', async () => {
    const list = await run(process.execPath, [INSPECTOR, '--cli', process.execPath, MAIN, config, '--method', 'tools/list']);
    expect(list.code).toBe(0);
    const names = (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['mcp_fx_echo', 'mcp_fx_add', 'mcp_fx_slow']));
    const call = await run(process.execPath, [INSPECTOR, '--cli', process.execPath, MAIN, config, '--method', 'tools/call', '--tool-name', 'mcp_fx_echo', '--tool-arg', 'text=governed']);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toEqual({ content: [{ type: 'text', text: 'governed' }] });
  }, 60_000);

  it('exits with code 2 and a reason on stderr when the configuration is refused', async () => {
    const bad = join(config, '..', 'bad.json');
    await writeFile(bad, JSON.stringify({ servers: [{ name: 'Bad Name', transport: 'stdio', command: 'x' }] }));
    const result = await run(process.execPath, [MAIN, bad]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Configuration "servers[0].name" must match');
  });
});
