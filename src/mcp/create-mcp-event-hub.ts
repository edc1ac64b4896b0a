import type { Emit } from './discover-server-tools.js';
import type { McpConnectionEventMap, McpConnectionEventName } from './mcp-types.js';

export interface McpEventHub {
  readonly emit: Emit;
  readonly on: <TName extends McpConnectionEventName>(event: TName, listener: (event: McpConnectionEventMap[TName]) => void) => () => void;
}

/** The connection's events: the `onEvent` option first, then each subscriber. A listener that throws is reported and never stops the others. */
export function createMcpEventHub(onEvent: (<TName extends McpConnectionEventName>(event: TName, payload: McpConnectionEventMap[TName]) => void) | undefined): McpEventHub {
  const listeners = new Map<McpConnectionEventName, Set<(payload: never) => void>>();
  const emit: Emit = <TName extends McpConnectionEventName>(event: TName, payload: McpConnectionEventMap[TName]) => {
    try {
      onEvent?.(event, payload);
    } catch (error) {
      console.error(`toolgate: an MCP "${event}" listener threw`, error);
    }
    for (const listener of listeners.get(event) ?? []) {
      try {
        (listener as (payload: McpConnectionEventMap[TName]) => void)(payload);
      } catch (error) {
        console.error(`toolgate: an MCP "${event}" listener threw`, error);
      }
    }
  };
  return {
    emit,
    on: (event, listener) => {
      const set = listeners.get(event) ?? new Set();
      set.add(listener);
      listeners.set(event, set);
      return () => set.delete(listener);
    },
  };
}
