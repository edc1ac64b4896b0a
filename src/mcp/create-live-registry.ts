import type { ToolgateError, ToolRegistry } from '../core/internal.js';
import type { LiveRegistry, McpToolsChange } from './mcp-types.js';

export interface LiveRegistryOptions {
  /** The registry with the connection's current tools already in place. */
  readonly initial: ToolRegistry;
  readonly onChange: (listener: (change: McpToolsChange) => void) => () => void;
  readonly explainMissing: (name: string) => ToolgateError | undefined;
}

/** A registry kept current with a connection's changes: each change becomes one new snapshot, handed to every subscriber. */
export function createLiveRegistry(options: LiveRegistryOptions): LiveRegistry {
  let current = options.initial;
  const subscribers = new Set<(registry: ToolRegistry) => void>();
  options.onChange((change) => {
    current = current.with(change.tools, { remove: change.remove });
    for (const subscriber of subscribers) subscriber(current);
  });
  return {
    current: () => current,
    subscribe(listener) {
      subscribers.add(listener);
      return () => subscribers.delete(listener);
    },
    explainMissing: options.explainMissing,
  };
}
