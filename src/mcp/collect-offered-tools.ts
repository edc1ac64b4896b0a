import type { AnyToolDefinition } from '../core/internal.js';
import type { UpstreamServer } from './create-mcp-capability.js';

export type CollectedTools =
  | { readonly type: 'collected'; readonly tools: readonly AnyToolDefinition[] }
  /** Two upstream tools map onto one governed name: `first` and `second` are `server/tool`. */
  | { readonly type: 'duplicate'; readonly name: string; readonly first: string; readonly second: string };

/** The offered definitions of every server, sorted by name, or the first two upstream tools that would share a governed name. */
export function collectOfferedTools(servers: Iterable<UpstreamServer>): CollectedTools {
  const seen = new Map<string, string>();
  const tools: AnyToolDefinition[] = [];
  for (const server of servers) {
    for (const entry of server.entries.values()) {
      const source = `${server.config.name}/${entry.tool.name}`;
      const other = seen.get(entry.name);
      if (other !== undefined) return { type: 'duplicate', name: entry.name, first: other, second: source };
      seen.set(entry.name, source);
      if (entry.definition !== undefined) tools.push(entry.definition);
    }
  }
  return { type: 'collected', tools: Object.freeze(tools.sort((left, right) => (left.name < right.name ? -1 : 1))) };
}
