import { ConfigurationError, ToolgateError, type AnyToolDefinition, type ToolRegistry } from '../core/internal.js';
import { checkConnectOptions } from './check-connect-options.js';
import { collectOfferedTools } from './collect-offered-tools.js';
import { createLiveRegistry } from './create-live-registry.js';
import { createMcpCapability, type UpstreamServer } from './create-mcp-capability.js';
import { createMcpEventHub } from './create-mcp-event-hub.js';
import { createRefreshScheduler } from './create-refresh-scheduler.js';
import { createServerSupervisor } from './create-server-supervisor.js';
import { createMcpCallGuard } from './guard-mcp-call.js';
import { discoverServerTools } from './discover-server-tools.js';
import { diffOfferedTools } from './diff-offered-tools.js';
import { pinnedDefinition } from './definition-digest.js';
import { createMemoryPinStore } from './pin-store.js';
import type { ConnectMcpServersOptions, McpConnection, McpServerConfig, McpToolsChange } from './mcp-types.js';
import { listAllTools } from './list-all-tools.js';
import { McpServerUnavailableError } from './mcp-server-unavailable-error.js';
import { startUpstreamServer } from './start-upstream-server.js';
import { findWithheldEntry, listWithheldDefinitions, withheldDefinitionError } from './withheld-definitions.js';

/**
 * Connect every configured upstream, discover its tools and return them as
 * governed definitions (`mcp_{server}_{tool}`, `source: 'mcp'`), with the
 * `host.mcp` capability their calls go through. Pins are checked at connect
 * and on every `notifications/tools/list_changed`; a change yields a new
 * tool set, applied to a registry as one new snapshot (`applyTo`, `live`).
 * A server that does not start, does not finish its handshake in time or
 * stops later fails alone: it is reported (`servers()`, `server-down`) with
 * the tail of its stderr, its tools are withdrawn, and it is retried with
 * backoff (1 s doubling to 60 s) until it comes up and its tools are
 * offered. A configuration mistake, a corrupt pin store or a tool-name
 * collision still fails the whole call, and the servers already opened are
 * closed.
 */
export async function connectMcpServers(options: ConnectMcpServersOptions): Promise<McpConnection> {
  checkConnectOptions(options);
  const pins = options.pins ?? createMemoryPinStore();
  const pinning = options.pinning ?? 'first-use';
  const events = createMcpEventHub(options.onEvent);
  const emit = events.emit;
  const changeListeners = new Set<(change: McpToolsChange) => void>();
  const servers = new Map<string, UpstreamServer>();
  /** Every name this connection ever offered: what a registry must drop before taking the current set. */
  const owned = new Set<string>();
  let offered: readonly AnyToolDefinition[] = [];
  let closed = false;

  const collect = (): readonly AnyToolDefinition[] => {
    const collected = collectOfferedTools(servers.values());
    if (collected.type === 'duplicate') throw new ToolgateError('DUPLICATE_TOOL', `MCP tools "${collected.first}" and "${collected.second}" both become "${collected.name}".`, { tool: collected.name });
    return collected.tools;
  };

  const publish = (): void => {
    const next = collect();
    const diff = diffOfferedTools(offered, next);
    if (diff.type === 'unchanged') return;
    const remove = Object.freeze([...owned]);
    for (const tool of next) owned.add(tool.name);
    offered = next;
    emit('tools-changed', { added: diff.added, removed: diff.removed });
    const change: McpToolsChange = Object.freeze({ tools: next, remove: Object.freeze([...new Set([...remove, ...owned])]) });
    for (const listener of changeListeners) listener(change);
  };

  const refreshServer = createRefreshScheduler<UpstreamServer>({
    keyOf: (server) => server.config.name,
    relist: async (server) => {
      // A server that went down since: its replacement lists for itself.
      if (closed || servers.get(server.config.name) !== server) return;
      const tools = await listAllTools(server.client);
      const before = server.entries;
      server.entries = await discoverServerTools({ server: server.config, tools, previous: before, pins, pinning, emit });
      try {
        collect();
      } catch (error) {
        server.entries = before;
        throw error;
      }
      publish();
    },
    onFailure: (server, error) => emit('refresh-failed', { server: server.config.name, error: asToolgateError(error).toJSON() }),
  });

  const start = (config: McpServerConfig): Promise<UpstreamServer> =>
    startUpstreamServer({
      config,
      connect: options,
      pins,
      pinning,
      emit,
      onToolsChanged: () => {
        const server = servers.get(config.name);
        if (server !== undefined) refreshServer(server).catch(() => undefined);
      },
      // A server that exits or drops the connection later is down from that moment, and retried.
      onClose: (server) => {
        if (!closed && servers.get(config.name) === server) supervisor.lost(server);
      },
    });

  const supervisor = createServerSupervisor({ configs: options.servers, servers, start, publish, isClosed: () => closed, emit });

  // Servers start side by side: one that hangs in its handshake delays none of the others.
  const results = await Promise.allSettled(options.servers.map((config) => start(config)));
  const fatal = results.find((result): result is PromiseRejectedResult => result.status === 'rejected' && !(result.reason instanceof McpServerUnavailableError));
  try {
    if (fatal !== undefined) throw fatal.reason;
    for (const [index, result] of results.entries()) if (result.status === 'fulfilled') servers.set(options.servers[index]?.name ?? '', result.value);
    offered = collect();
    for (const tool of offered) owned.add(tool.name);
  } catch (error) {
    // A configuration mistake, a corrupt pin store or a collision fails the whole call: nothing started is left running.
    await Promise.allSettled(results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.client.close()] : [])));
    throw error;
  }
  for (const [index, result] of results.entries()) {
    const name = options.servers[index]?.name ?? '';
    if (result.status === 'fulfilled') supervisor.up(name, result.value);
    else supervisor.down(name, result.reason);
  }

  const connection: McpConnection = {
    get tools() {
      return offered;
    },
    capability: createMcpCapability({ servers, emit, withheldError: withheldDefinitionError, downError: supervisor.downError }),
    mcpCallGuard: createMcpCallGuard(servers),
    onChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    on: events.on,
    applyTo(registry: ToolRegistry): ToolRegistry {
      return registry.with(offered, { remove: [...owned] });
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
      await refreshServer(server);
    },
    withheldError(name) {
      const entry = findWithheldEntry(servers.values(), name);
      return entry === undefined ? undefined : withheldDefinitionError(entry);
    },
    async refresh() {
      await Promise.all([...servers.values()].map((server) => refreshServer(server)));
    },
    servers: () => supervisor.statuses(),
    async close() {
      closed = true;
      supervisor.stop();
      await Promise.allSettled([...servers.values()].map((server) => server.client.close()));
    },
  };
  return connection;
}

function asToolgateError(error: unknown): ToolgateError {
  return ToolgateError.isInstance(error) ? error : new ToolgateError('EXECUTION_FAILED', 'Refreshing the MCP tool list failed.', { cause: error });
}
