import { describe, expect, it } from 'vitest';
import type { AnyToolDefinition } from '../core/internal.js';
import { collectOfferedTools } from './collect-offered-tools.js';
import type { UpstreamServer } from './create-mcp-capability.js';
import type { UpstreamEntry } from './discover-server-tools.js';

const definition = (name: string) => ({ name }) as AnyToolDefinition;
const entry = (server: string, tool: string, name: string, offered = true) =>
  ({ server, tool: { name: tool }, name, status: offered ? 'offered' : 'withheld', definition: offered ? definition(name) : undefined }) as unknown as UpstreamEntry;
const server = (name: string, entries: UpstreamEntry[]) => ({ config: { name }, entries: new Map(entries.map((item) => [item.tool.name, item])) }) as unknown as UpstreamServer;

describe('collectOfferedTools', () => {
  it('returns the offered definitions of every server sorted by name, and leaves withheld ones out', () => {
    const collected = collectOfferedTools([server('b', [entry('b', 'z', 'mcp_b_z')]), server('a', [entry('a', 'y', 'mcp_a_y'), entry('a', 'w', 'mcp_a_w', false)])]);
    expect(collected.tools.map((tool) => tool.name)).toEqual(['mcp_a_y', 'mcp_b_z']);
    expect(collected.skipped).toEqual([]);
    expect(Object.isFrozen(collected.tools)).toBe(true);
  });

  it('gives a name two servers\' tools fold to to the server listed first, a withheld tool included, and skips the other', () => {
    const withheldFirst = collectOfferedTools([server('a_x', [entry('a_x', 'y', 'mcp_a_x_y', false)]), server('a', [entry('a', 'x_y', 'mcp_a_x_y')])]);
    expect(withheldFirst.tools).toEqual([]);
    expect(withheldFirst.skipped).toEqual([{ server: 'a', tool: 'x_y', name: 'mcp_a_x_y', holder: 'a_x/y' }]);
    const offeredFirst = collectOfferedTools([server('a', [entry('a', 'x_y', 'mcp_a_x_y')]), server('a_x', [entry('a_x', 'y', 'mcp_a_x_y')])]);
    expect(offeredFirst.tools.map((tool) => tool.name)).toEqual(['mcp_a_x_y']);
    expect(offeredFirst.skipped).toEqual([{ server: 'a_x', tool: 'y', name: 'mcp_a_x_y', holder: 'a/x_y' }]);
  });

  it('leaves a name with the tool offered under it now, whatever the order: a server that comes up later cannot take it', () => {
    const holder = entry('b', 'y', 'mcp_a_x_y');
    const later = entry('a', 'x_y', 'mcp_a_x_y');
    const collected = collectOfferedTools([server('a', [later]), server('b', [holder])], new Set([holder.definition as AnyToolDefinition]));
    expect(collected.tools).toEqual([holder.definition]);
    expect(collected.skipped).toEqual([{ server: 'a', tool: 'x_y', name: 'mcp_a_x_y', holder: 'b/y' }]);
  });
});
