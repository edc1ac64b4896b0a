import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { CLI } from './support/spawn-cli.js';

// A hostile upstream against what its listing costs, through `toolgate serve --stdio` and the MCP SDK client: tool
// schemas of any size, each listing page within a message but a hundred of them not. Served whole, twenty 8 MiB schemas
// held the gateway at a gigabyte and made a `tools/list` line of 167 MB, which the SDK's client refuses (it closed the
// transport, and the gateway with it).

const KIB = 1024;

describe('attack: an upstream lists tools larger than any client reads', () => {
  let client: Client;

  beforeAll(async () => {
    const served = attackWorkspace('toolgate-attack-listing', {
      // Six tools of 300 KiB of schema each: each is past what one tool may take.
      huge: { command: process.execPath, args: [UPSTREAM, '--tools', '6', '--schema-text', String(300 * KIB)], trust: 'annotations' },
      // Twelve of 200 KiB: each fits, together they pass what one page of the gateway's listing holds.
      wide: { command: process.execPath, args: [UPSTREAM, '--tools', '12', '--schema-text', String(200 * KIB)], trust: 'annotations' },
      // Forty-five of 200 KiB: one message within the limit, nine megabytes of definitions, past what one server's listing may hold.
      flood: { command: process.execPath, args: [UPSTREAM, '--tools', '45', '--schema-text', String(200 * KIB)], trust: 'annotations' },
      fx: { command: process.execPath, args: [UPSTREAM], trust: 'annotations' },
    });
    client = new Client({ name: 'listing-attacker', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }));
  }, 60_000);

  afterAll(async () => {
    await client.close();
  });

  /** Every page of the gateway's `tools/list`, and the largest page as JSON. */
  async function listEveryPage(): Promise<{ tools: Tool[]; pages: number; largest: number }> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let largest = 0;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      pages += 1;
      largest = Math.max(largest, JSON.stringify(page).length);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { tools, pages, largest };
  }

  it('serves a large listing in pages a client reads, every tool that fits on one of them', async () => {
    const { tools, pages, largest } = await listEveryPage();
    const names = tools.map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('mcp_wide_t'))).toHaveLength(12);
    expect(pages).toBeGreaterThan(1);
    expect(largest).toBeLessThan(1.5 * 1024 * KIB);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('mcp_fx_echo');
    // Served, and governed as any tool of a server that does not say it is read-only: asked for, not unknown.
    expect(JSON.stringify((await client.callTool({ name: 'mcp_wide_t3', arguments: { value: 'fits' } })).content)).toContain('needs an approval');
  });

  it('offers no tool whose schemas pass what one tool may take, and the rest of its server', async () => {
    const { tools } = await listEveryPage();
    const names = tools.map((tool) => tool.name);
    expect(names.filter((name) => name.startsWith('mcp_huge_t'))).toEqual([]);
    expect(names).toContain('mcp_huge_echo');
    const refused = await client.callTool({ name: 'mcp_huge_t0', arguments: { value: 'x' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).not.toContain('needs an approval');
  });

  it('takes no tool of a server whose listing passes what one server may hold, and serves the others', async () => {
    const { tools } = await listEveryPage();
    expect(tools.some((tool) => tool.name.startsWith('mcp_flood_'))).toBe(false);
    expect((await client.callTool({ name: 'mcp_fx_echo', arguments: { text: 'still here' } })).content).toEqual([{ type: 'text', text: 'still here' }]);
  });

  it('answers a cursor its listing does not have with an error, not a page', async () => {
    await expect(client.listTools({ cursor: '999' })).rejects.toThrow(/cursor/);
    await expect(client.listTools({ cursor: 'x' })).rejects.toThrow(/cursor/);
  });
});

// A hostile upstream that lists a tool under a name another tool already folds to. Each such listing stopped the whole
// gateway from starting (DUPLICATE_TOOL), every other server with it.
describe('attack: an upstream lists names that fold onto another tool\'s', () => {
  let client: Client;
  let stderr = '';

  beforeAll(async () => {
    const served = attackWorkspace('toolgate-attack-collision', {
      // Listed first: its "b_echo" is served as mcp_a_b_echo.
      a: { command: process.execPath, args: [UPSTREAM, '--extra-tool', 'b_echo'], trust: 'annotations', tools: { b_echo: { governed: false } } },
      // Its "echo" folds to mcp_a_b_echo too.
      a_b: { command: process.execPath, args: [UPSTREAM], trust: 'annotations' },
      // "Echo" and "echo" fold to one name in one listing.
      twin: { command: process.execPath, args: [UPSTREAM, '--extra-tool', 'Echo'], trust: 'annotations' },
    });
    client = new Client({ name: 'collision-attacker', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await client.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await client.close();
  });

  it('starts and serves every other tool; the name stays with the server listed first, and two of one listing lose it', async () => {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('mcp_a_echo');
    expect(names).toContain('mcp_a_b_fail');
    expect(names).toContain('mcp_twin_fail');
    expect(names).not.toContain('mcp_twin_echo');
    // The name is server "a"'s: its extra tool runs under it (and answers with its own name), or, when server "a_b"'s
    // echo was pinned under that name first, it waits as a changed definition. "a_b"'s echo never runs under it.
    const answer = await client.callTool({ name: 'mcp_a_b_echo', arguments: { text: 'from a_b' } });
    expect(JSON.stringify(answer.content)).not.toContain('from a_b');
    if (names.includes('mcp_a_b_echo')) expect(answer).toMatchObject({ content: [{ type: 'text', text: 'b_echo' }] });
    expect(stderr).toContain('MCP tool a_b/echo is not offered: MCP tools "a/b_echo" and "a_b/echo" both become "mcp_a_b_echo": "a/b_echo" keeps it, and "a_b/echo" is not offered.');
    expect(stderr).toContain('MCP tool twin/Echo is not offered: MCP server "twin" offers tools "echo" and "Echo", which both become "mcp_twin_echo": neither is offered.');
  });
});
