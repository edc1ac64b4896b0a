import { ConfigurationError, type ToolRegistry } from '../core/internal.js';
import { createLiveRegistry } from './create-live-registry.js';
import { createMcpCapability, type UpstreamServer } from './create-mcp-capability.js';
import type { McpEventHub } from './create-mcp-event-hub.js';
import type { RefreshScheduler } from './create-refresh-scheduler.js';
import type { ServerSupervisor } from './create-server-supervisor.js';
import { pinnedDefinition } from './definition-digest.js';
import { createMcpCallGuard } from './guard-mcp-call.js';
import type { McpConnection } from './mcp-types.js';
import type { OfferedToolSet } from './offered-tool-set.js';
import type { McpPinStore } from './pin-store.js';
import { findWithheldEntry, listWithheldDefinitions, withheldDefinitionError } from './withheld-definitions.js';

export interface McpConnectionParts {
  readonly servers: ReadonlyMap<string, UpstreamServer>;
  readonly offered: OfferedToolSet;
  readonly events: McpEventHub;
  readonly supervisor: ServerSupervisor;
  readonly pins: McpPinStore;
  /** Re-list one server's tools and offer what changed. */
  readonly refreshServer: RefreshScheduler<UpstreamServer>;
  readonly close: () => Promise<void>;
}

/** What a caller holds of the connected servers: their offered tools, the capability their calls go through, pins and statuses. */
export function createMcpConnection(parts: McpConnectionParts): McpConnection {
  const { servers, offered, events, supervisor, pins, refreshServer } = parts;
  const connection: McpConnection = {
    get tools() {
      return offered.current();
    },
    capability: createMcpCapability({ servers, emit: events.emit, withheldError: withheldDefinitionError, downError: supervisor.downError, serves: offered.serves }),
    mcpCallGuard: createMcpCallGuard(servers),
    onChange: offered.onChange,
    on: events.on,
    applyTo(registry: ToolRegistry): ToolRegistry {
      return registry.with(offered.current(), { remove: offered.owned() });
    },
    live(registry: ToolRegistry) {
      return createLiveRegistry({ initial: connection.applyTo(registry), onChange: (listener) => connection.onChange(listener), explainMissing: (name) => connection.withheldError(name) ?? supervisor.explainDown(name) });
    },
    listWithheld: () => listWithheldDefinitions(servers.values()),
    async approvePin(name, options = {}) {
      const entry = findWithheldEntry(servers.values(), name);
      const server = entry === undefined ? undefined : servers.get(entry.server);
      if (entry === undefined || server === undefined) throw new ConfigurationError('approvePin', `names no withheld MCP definition "${name.slice(0, 64)}"`);
      if (options.digest !== undefined && options.digest !== entry.digest) {
        throw new ConfigurationError('approvePin', `was given the digest of a definition "${entry.name}" no longer offers: review what it offers now`);
      }
      await pins.set({ server: entry.server, tool: entry.tool.name, digest: entry.digest, approvedAt: new Date().toISOString(), approvedBy: options.by ?? 'approver', definition: pinnedDefinition(entry.tool) });
      // Re-list rather than trust the stored entry: what gets offered is what the upstream offers now, checked against the new pin.
      await refreshServer(server, { promptly: true });
    },
    withheldError(name) {
      const entry = findWithheldEntry(servers.values(), name);
      return entry === undefined ? undefined : withheldDefinitionError(entry);
    },
    async refresh() {
      await Promise.all([...servers.values()].map((server) => refreshServer(server, { promptly: true })));
    },
    servers: () => supervisor.statuses(),
    close: parts.close,
  };
  return connection;
}
