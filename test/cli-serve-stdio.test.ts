import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, run, UPSTREAM } from './fixtures/mcp/helpers.js';
import { CLI } from './support/spawn-cli.js';

const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
let config: string;

beforeAll(() => {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-serve-stdio-'));
  writeFileSync(join(workspace, 'notes.md'), 'hello from the workspace\n');
  config = join(workspace, 'toolgate.config.json');
  // An upstream server beside the built-ins; a deny rule hides one of its tools. Trusted, so its read-only echo is
  // not governed; add is not governed because the operator says so. Every other tool of it would ask.
  writeFileSync(
    config,
    JSON.stringify({ servers: { fx: { command: process.execPath, args: [UPSTREAM], trust: 'annotations', tools: { add: { governed: false } } } }, policy: { deny: ['mcp__fx__slow'] }, console: { enabled: false } }),
  );
});

describe('toolgate serve --stdio with real MCP clients', () => {
  it('serves the built-ins and the governed upstream to the SDK Client', async () => {
    const client = new Client({ name: 'stdio-client', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '--json', '-c', config, 'serve', '--stdio'], stderr: 'ignore' }));
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['read_file', 'write_file', 'mcp_fx_echo', 'mcp_fx_add']));
      expect(names).not.toContain('mcp_fx_slow');
      const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.md' } });
      expect(JSON.stringify(read.content)).toContain('hello from the workspace');
      expect(await client.callTool({ name: 'mcp_fx_add', arguments: { a: 20, b: 22 } })).toMatchObject({ structuredContent: { sum: 42 } });
      // The default scope is read-only: a write is refused before the host is touched.
      const write = await client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'changed' } });
      expect(write.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('with --json, stdout still carries only the protocol (the start-up document goes to stderr)', async () => {
    const child = spawn(process.execPath, [CLI, '--json', '-c', config, 'serve', '--stdio']);
    try {
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const firstLine = new Promise<string>((resolve) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const end = out.indexOf('\n');
          if (end !== -1) resolve(out.slice(0, end));
        });
      });
      await expect.poll(() => stderr, { timeout: 15_000 }).toContain('"mcp":"stdio"');
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
      expect(JSON.parse(await firstLine)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'toolgate' } } });
    } finally {
      child.kill();
    }
  });

  it('answers @modelcontextprotocol/inspector 0.15.0 in CLI mode', async () => {
    const list = await run(process.execPath, [INSPECTOR, '--cli', process.execPath, CLI, '-c', config, 'serve', '--stdio', '--method', 'tools/list']);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toContain('read_file');
    const call = await run(process.execPath, [INSPECTOR, '--cli', process.execPath, CLI, '-c', config, 'serve', '--stdio', '--method', 'tools/call', '--tool-name', 'mcp_fx_echo', '--tool-arg', 'text=governed']);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout)).toEqual({ content: [{ type: 'text', text: 'governed' }] });
  }, 60_000);
});
