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
    expect(collected.type).toBe('collected');
    expect(collected.type === 'collected' && collected.tools.map((tool) => tool.name)).toEqual(['mcp_a_y', 'mcp_b_z']);
    expect(collected.type === 'collected' && Object.isFrozen(collected.tools)).toBe(true);
  });

  it('names the two upstream tools that would share a governed name, a withheld one included', () => {
    const collected = collectOfferedTools([server('a', [entry('a', 'x_y', 'mcp_a_x_y')]), server('a_x', [entry('a_x', 'y', 'mcp_a_x_y', false)])]);
    expect(collected).toEqual({ type: 'duplicate', name: 'mcp_a_x_y', first: 'a/x_y', second: 'a_x/y' });
  });
});
