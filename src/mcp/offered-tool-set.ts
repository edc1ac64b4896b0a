import { ToolgateError, type AnyToolDefinition } from '../core/internal.js';
import { collectOfferedTools } from './collect-offered-tools.js';
import type { UpstreamServer } from './create-mcp-capability.js';
import type { Emit } from './discover-server-tools.js';
import { diffOfferedTools } from './diff-offered-tools.js';
import type { McpToolsChange } from './mcp-types.js';

/** The tools a connection offers, and every name it ever offered. */
export interface OfferedToolSet {
  /** The definitions offered now. */
  readonly current: () => readonly AnyToolDefinition[];
  /** Every name this connection ever offered: what a registry must drop before taking the current set. */
  readonly owned: () => readonly string[];
  /** What the servers offer now; a tool-name collision throws `DUPLICATE_TOOL`. */
  readonly collect: () => readonly AnyToolDefinition[];
  /** Take what the servers offer now as the first set, with no event and no listener told. */
  readonly adopt: () => void;
  /** Take what the servers offer now; when it differs, emit `tools-changed` and tell every listener. */
  readonly publish: () => void;
  readonly onChange: (listener: (change: McpToolsChange) => void) => () => void;
}

export function createOfferedToolSet(servers: ReadonlyMap<string, UpstreamServer>, emit: Emit): OfferedToolSet {
  const listeners = new Set<(change: McpToolsChange) => void>();
  const owned = new Set<string>();
  let offered: readonly AnyToolDefinition[] = [];

  const collect = (): readonly AnyToolDefinition[] => {
    const collected = collectOfferedTools(servers.values());
    if (collected.type === 'duplicate') throw new ToolgateError('DUPLICATE_TOOL', `MCP tools "${collected.first}" and "${collected.second}" both become "${collected.name}".`, { tool: collected.name });
    return collected.tools;
  };

  return {
    current: () => offered,
    owned: () => [...owned],
    collect,
    adopt: () => {
      offered = collect();
      for (const tool of offered) owned.add(tool.name);
    },
    publish: () => {
      const next = collect();
      const diff = diffOfferedTools(offered, next);
      if (diff.type === 'unchanged') return;
      const remove = Object.freeze([...owned]);
      for (const tool of next) owned.add(tool.name);
      offered = next;
      emit('tools-changed', { added: diff.added, removed: diff.removed });
      const change: McpToolsChange = Object.freeze({ tools: next, remove: Object.freeze([...new Set([...remove, ...owned])]) });
      for (const listener of listeners) listener(change);
    },
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
