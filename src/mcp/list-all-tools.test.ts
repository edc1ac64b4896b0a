import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { listAllTools } from './list-all-tools.js';

const tool = (name: string) => ({ name, inputSchema: { type: 'object' as const } });

describe('listAllTools', () => {
  it('follows cursors to the last page', async () => {
    const pages = [{ tools: [tool('a')], nextCursor: '1' }, { tools: [tool('b')] }];
    const client = { listTools: ({ cursor }: { cursor?: string }) => Promise.resolve(pages[cursor === undefined ? 0 : 1]) } as unknown as Client;
    expect((await listAllTools(client)).tools.map((entry) => entry.name)).toEqual(['a', 'b']);
  });

  it('stops an upstream whose cursor never ends', async () => {
    let calls = 0;
    const client = { listTools: () => Promise.resolve({ tools: [tool(`t${(calls += 1)}`)], nextCursor: 'again' }) } as unknown as Client;
    await expect(listAllTools(client)).rejects.toThrow(/did not finish within 100 pages/);
    expect(calls).toBe(100);
  });

  it('stops an upstream whose pages, each within a message, add up past what a listing may hold, before asking for more', async () => {
    // One 2 MiB schema a page: five pages pass 8 MiB.
    const big = { name: 'big', inputSchema: { type: 'object' as const, description: 'x'.repeat(2 * 1024 * 1024) } };
    let calls = 0;
    const client = { listTools: () => Promise.resolve({ tools: [{ ...big, name: `big${(calls += 1)}` }], nextCursor: 'more' }) } as unknown as Client;
    await expect(listAllTools(client)).rejects.toThrow(/more than 8 MiB of tool definitions/);
    expect(calls).toBe(4);
  });

  it('sets aside a tool nested deeper than a walk follows, before measuring the page, and keeps the others', async () => {
    // 20,000 levels: JSON.stringify of the page overflowed the stack, and the whole listing failed.
    const deep = { name: 'deep', inputSchema: { type: 'object' as const, properties: { x: { default: JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`) as unknown } } } };
    const client = { listTools: () => Promise.resolve({ tools: [tool('a'), deep, tool('b')] }) } as unknown as Client;
    const listing = await listAllTools(client);
    expect(listing.tools.map((entry) => entry.name)).toEqual(['a', 'b']);
    expect(listing.setAside).toEqual([{ tool: 'deep', problem: 'has a definition nested deeper than 64 levels' }]);
  });

  it('stops an upstream that lists too many tools', async () => {
    const many = Array.from({ length: 6000 }, (_, index) => tool(`t${index}`));
    const client = { listTools: () => Promise.resolve({ tools: many, nextCursor: 'more' }) } as unknown as Client;
    await expect(listAllTools(client)).rejects.toThrow(/more than 10000 tools/);
  });
});
