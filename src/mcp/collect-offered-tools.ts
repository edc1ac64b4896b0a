import type { AnyToolDefinition } from '../core/internal.js';
import type { UpstreamServer } from './create-mcp-capability.js';

/** An upstream tool left out because another server's tool already holds the governed name it folds to. */
export interface SkippedCollision {
  readonly server: string;
  readonly tool: string;
  readonly name: string;
  /** The tool that holds the name, as `server/tool`. */
  readonly holder: string;
}

export interface CollectedTools {
  readonly tools: readonly AnyToolDefinition[];
  readonly skipped: readonly SkippedCollision[];
}

/**
 * The offered definitions of every server, sorted by name. Two servers'
 * tools that fold to one governed name never both serve it: the tool
 * offered under it now keeps it, else the server listed first does (the
 * configuration's order), a withheld tool included, so no server takes a
 * name whose tool waits for its approval. The other is `skipped`. A server
 * that renames a tool onto another's name costs that tool alone.
 */
export function collectOfferedTools(servers: Iterable<UpstreamServer>, offeredNow: ReadonlySet<AnyToolDefinition> = new Set()): CollectedTools {
  const listed = [...servers];
  const holders = new Map<string, string>();
  for (const server of listed) {
    for (const entry of server.entries.values()) {
      if (entry.definition !== undefined && offeredNow.has(entry.definition)) holders.set(entry.name, `${server.config.name}/${entry.tool.name}`);
    }
  }
  const tools: AnyToolDefinition[] = [];
  const skipped: SkippedCollision[] = [];
  for (const server of listed) {
    for (const entry of server.entries.values()) {
      const source = `${server.config.name}/${entry.tool.name}`;
      const holder = holders.get(entry.name);
      if (holder !== undefined && holder !== source) {
        skipped.push({ server: server.config.name, tool: entry.tool.name, name: entry.name, holder });
        continue;
      }
      holders.set(entry.name, source);
      if (entry.definition !== undefined) tools.push(entry.definition);
    }
  }
  return { tools: Object.freeze(tools.sort((left, right) => (left.name < right.name ? -1 : 1))), skipped };
}
