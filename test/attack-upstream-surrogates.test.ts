import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { CLI } from './support/spawn-cli.js';

// A hostile upstream that places an emoji (two UTF-16 code units) where the gateway clips its texts, through
// `toolgate serve --stdio` and the MCP SDK client (test/__fixtures__/surrogate-cut-server.mjs). The hidden-character
// scan removes lone surrogate halves from every upstream text; the clip after it cut between the emoji's halves and
// sent the client a lone high surrogate, in a tool's description and in an isError text. Text must stay text.

const SURROGATES = join(ROOT, 'test/__fixtures__/surrogate-cut-server.mjs');

describe('attack: an upstream text clipped between the halves of a character', () => {
  let client: Client | undefined;
  afterAll(async () => {
    await client?.close();
  });

  it('a clipped description and a clipped error text are well-formed, the character kept whole or left out', async () => {
    const served = attackWorkspace('toolgate-attack-surrogates', { su: { command: process.execPath, args: [SURROGATES], trust: 'annotations' } });
    client = new Client({ name: 'surrogate-cutter', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }));
    const description = (await client.listTools()).tools.find((tool) => tool.name === 'mcp_su_long_description')?.description ?? '';
    expect(description.startsWith('ddd')).toBe(true);
    expect(description.endsWith('…')).toBe(true);
    expect(description.isWellFormed()).toBe(true);
    const failed = await client.callTool({ name: 'mcp_su_long_error', arguments: {} });
    const text = (failed.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain('eee');
    expect(text.isWellFormed()).toBe(true);
  }, 30_000);
});
