import { describe, expect, it } from 'vitest';
import type { McpTool } from '../core/internal.js';
import { MAX_PAGE_TEXT, servedToolsPage, type ServedTools } from './list-served-tools.js';

const tool = (name: string, text: number): McpTool => ({ name, description: 'x'.repeat(text), inputSchema: { type: 'object' } });
const served = (tools: readonly McpTool[]): ServedTools => ({ tools, keyByWireName: new Map() });

describe('servedToolsPage', () => {
  it('answers a small listing whole, with no cursor', () => {
    expect(servedToolsPage(served([tool('a', 10), tool('b', 10)]), undefined)).toEqual({ tools: [tool('a', 10), tool('b', 10)] });
  });

  it('cuts a large listing into pages of at most the bound (a tool larger alone gets a page of its own), each naming the next', () => {
    const listing = served([tool('a', MAX_PAGE_TEXT / 2), tool('b', MAX_PAGE_TEXT / 2), tool('c', MAX_PAGE_TEXT + 10), tool('d', 10)]);
    const first = servedToolsPage(listing, undefined);
    expect(first.tools.map((entry) => entry.name)).toEqual(['a']);
    const names: string[] = [];
    for (let page = first; ; page = servedToolsPage(listing, page.nextCursor)) {
      names.push(...page.tools.map((entry) => entry.name));
      expect(page.tools.length === 1 || JSON.stringify(page.tools).length <= MAX_PAGE_TEXT).toBe(true);
      if (page.nextCursor === undefined) break;
    }
    expect(names).toEqual(['a', 'b', 'c', 'd']);
  });

  it.each(['7', '-1', '01', 'x', '1e3', ''])('refuses a cursor the listing does not have (%j) with InvalidParams', (cursor) => {
    expect(() => servedToolsPage(served([tool('a', 10)]), cursor)).toThrow(expect.objectContaining({ code: -32602 }));
  });

  it('answers an empty listing with no tools', () => {
    expect(servedToolsPage(served([]), undefined)).toEqual({ tools: [] });
  });
});
