import { describe, expect, it } from 'vitest';
import type { AnyToolDefinition } from '../core/internal.js';
import type { UpstreamServer } from './create-mcp-capability.js';
import type { Emit, UpstreamEntry } from './discover-server-tools.js';
import type { McpToolsChange } from './mcp-types.js';
import { createOfferedToolSet } from './offered-tool-set.js';

const entry = (server: string, tool: string) => ({ server, tool: { name: tool }, name: `mcp_${server}_${tool}`, status: 'offered', definition: { name: `mcp_${server}_${tool}` } as AnyToolDefinition }) as unknown as UpstreamEntry;
const server = (name: string, tools: string[]) => ({ config: { name }, entries: new Map(tools.map((tool) => [tool, entry(name, tool)])) }) as unknown as UpstreamServer;

function setWith(initial: UpstreamServer[]) {
  const servers = new Map(initial.map((item) => [item.config.name, item]));
  const events: unknown[] = [];
  const emit = ((event: string, payload: unknown) => void events.push({ event, payload })) as Emit;
  const changes: McpToolsChange[] = [];
  const offered = createOfferedToolSet(servers, emit);
  offered.onChange((change) => changes.push(change));
  return { servers, offered, events, changes };
}

describe('createOfferedToolSet', () => {
  it('adopts the first set quietly', () => {
    const { offered, events, changes } = setWith([server('a', ['x'])]);
    offered.adopt();
    expect(offered.current().map((tool) => tool.name)).toEqual(['mcp_a_x']);
    expect(offered.owned()).toEqual(['mcp_a_x']);
    expect(events).toEqual([]);
    expect(changes).toEqual([]);
  });

  it('publishes a change with what was added and removed, and keeps every name ever offered for removal', () => {
    const { servers, offered, events, changes } = setWith([server('a', ['x'])]);
    offered.adopt();
    servers.set('a', server('a', ['y']));
    offered.publish();
    expect(events).toEqual([{ event: 'tools-changed', payload: { added: ['mcp_a_y'], removed: ['mcp_a_x'] } }]);
    expect(changes).toHaveLength(1);
    expect(changes[0]?.tools.map((tool) => tool.name)).toEqual(['mcp_a_y']);
    expect(changes[0]?.remove).toEqual(['mcp_a_x', 'mcp_a_y']);
    expect(offered.owned()).toEqual(['mcp_a_x', 'mcp_a_y']);
  });

  it('publishes nothing when the set did not change, and stops telling a listener that unsubscribed', () => {
    const { servers, offered, events, changes } = setWith([server('a', ['x'])]);
    offered.adopt();
    offered.publish();
    expect(events).toEqual([]);
    const seen: McpToolsChange[] = [];
    offered.onChange((change) => seen.push(change))();
    servers.set('a', server('a', []));
    offered.publish();
    expect(changes).toHaveLength(1);
    expect(seen).toEqual([]);
  });

  it('keeps a governed name with the tool that holds it when another server\'s tool folds to it, and tells of the skip once', () => {
    const { servers, offered, events } = setWith([server('a', ['x_y'])]);
    offered.adopt();
    servers.set('a_x', server('a_x', ['y', 'z']));
    offered.publish();
    offered.publish();
    expect(offered.current().map((tool) => tool.name)).toEqual(['mcp_a_x_y', 'mcp_a_x_z']);
    expect(events.filter((entry) => (entry as { event: string }).event === 'tool-skipped')).toEqual([
      {
        event: 'tool-skipped',
        payload: {
          server: 'a_x',
          tool: 'y',
          error: expect.objectContaining({ code: 'DUPLICATE_TOOL', message: 'MCP tools "a/x_y" and "a_x/y" both become "mcp_a_x_y": "a/x_y" keeps it, and "a_x/y" is not offered.' }),
        },
      },
    ]);
  });
});
