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
  /** Whether a definition is among them. */
  readonly serves: (definition: AnyToolDefinition) => boolean;
  /** Every name this connection ever offered: what a registry must drop before taking the current set. */
  readonly owned: () => readonly string[];
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
  let served: ReadonlySet<AnyToolDefinition> = new Set();

  /** Each skip is told once, until the tool is offered or gone: a server that keeps the name keeps it quietly. */
  let told = new Set<string>();
  const collect = (): readonly AnyToolDefinition[] => {
    const collected = collectOfferedTools(servers.values(), served);
    const skipping = new Set<string>();
    for (const skip of collected.skipped) {
      const key = `${skip.server}/${skip.tool}`;
      skipping.add(key);
      if (told.has(key)) continue;
      const error = new ToolgateError('DUPLICATE_TOOL', `MCP tools "${skip.holder}" and "${key}" both become "${skip.name}": "${skip.holder}" keeps it, and "${key}" is not offered.`, { tool: skip.name });
      emit('tool-skipped', { server: skip.server, tool: skip.tool, error: error.toJSON() });
    }
    told = skipping;
    return collected.tools;
  };

  return {
    current: () => offered,
    serves: (definition) => served.has(definition),
    owned: () => [...owned],
    adopt: () => {
      offered = collect();
      served = new Set(offered);
      for (const tool of offered) owned.add(tool.name);
    },
    publish: () => {
      const next = collect();
      const diff = diffOfferedTools(offered, next);
      if (diff.type === 'unchanged') return;
      const remove = Object.freeze([...owned]);
      for (const tool of next) owned.add(tool.name);
      offered = next;
      served = new Set(next);
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
