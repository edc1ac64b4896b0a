import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { CLI } from './support/spawn-cli.js';

// A hostile upstream whose definitions and results nest deeper than a recursive walk follows, through
// `toolgate serve --stdio` and the MCP SDK client (test/__fixtures__/deep-nesting-server.mjs). JSON.parse reads such a
// message, and JSON.stringify, the digest and the hidden-character scan overflow the stack on it. Before: one tool whose
// schema, annotations or `_meta` nested 20,000 levels took its server down at every start and retry ("Maximum call stack
// size exceeded"), every honest tool of it with it, though a schema nested past 64 levels is a tool skipped; and a
// result whose content or structured value nested as deep failed its call with no reason given.

const DEEP = join(ROOT, 'test/__fixtures__/deep-nesting-server.mjs');

type Result = Awaited<ReturnType<Client['callTool']>>;
const textOf = (result: Result): string => (result.content as { text?: string }[]).map((block) => block.text ?? '').join('\n');

let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function serve(): Promise<{ client: Client; stderr: () => string }> {
  const served = attackWorkspace('toolgate-attack-nesting', { dn: { command: process.execPath, args: [DEEP], trust: 'annotations' } });
  const connected = new Client({ name: 'nesting-attacker', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await connected.connect(transport);
  client = connected;
  return { client: connected, stderr: () => stderr };
}

const upstreamTools = async (connected: Client): Promise<string[]> => (await connected.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp_dn_'));

describe('attack: an upstream whose messages nest deeper than a walk follows', () => {
  it('a deep definition costs that tool alone, skipped and named, never its server', async () => {
    const served = await serve();
    expect((await upstreamTools(served.client)).sort()).toEqual(['mcp_dn_deep_annotations', 'mcp_dn_deep_meta', 'mcp_dn_deep_structured', 'mcp_dn_echo']);
    expect(textOf(await served.client.callTool({ name: 'mcp_dn_echo', arguments: {} }))).toBe('echo ok');
    for (const tool of ['deep_schema', 'deep_output', 'deep_tool_meta']) expect(served.stderr()).toContain(`MCP tool dn/${tool} is not offered: Tool "mcp_dn_${tool}" has a definition nested deeper than`);
    expect(served.stderr()).not.toMatch(/call stack|is down/);
  }, 30_000);

  it('a result that nests deep fails its call as a malformed result, saying so, and the server goes on', async () => {
    // Before: each call failed as "Tool … failed.", the scan having overflowed the stack.
    const served = await serve();
    for (const name of ['mcp_dn_deep_meta', 'mcp_dn_deep_structured']) {
      const result = await served.client.callTool({ name, arguments: {} });
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toBe(`Tool "${name}" failed: the MCP server sent a malformed result (it nests deeper than 64 levels).`);
    }
    expect(textOf(await served.client.callTool({ name: 'mcp_dn_echo', arguments: {} }))).toBe('echo ok');
  }, 30_000);
});
