import { ConfigurationError, ToolgateError, ToolPolicyError, type AnyToolDefinition, type ToolRegistry } from '../core/index.js';
import { createMcpCapability, type UpstreamServer } from './create-mcp-capability.js';
import { createMcpCallGuard } from './guard-mcp-call.js';
import { describeWithheld, discoverServerTools, type Emit, type UpstreamEntry } from './discover-server-tools.js';
import { createMemoryPinStore } from './pin-store.js';
import { isValidServerName } from './is-valid-server-name.js';
import type {
  ConnectMcpServersOptions,
  LiveRegistry,
  McpConnection,
  McpConnectionEventMap,
  McpConnectionEventName,
  McpToolsChange,
  WithheldDefinition,
} from './mcp-types.js';
import { listAllTools } from './list-all-tools.js';
import { openUpstream } from './open-upstream.js';
import { checkServerGovernance } from './upstream-governance.js';

/**
 * Connect every configured upstream, discover its tools and return them as
 * governed definitions (`mcp_{server}_{tool}`, `source: 'mcp'`), with the
 * `host.mcp` capability their calls go through. Pins are checked at connect
 * and on every `notifications/tools/list_changed`; a change yields a new
 * tool set, applied to a registry as one new snapshot (`applyTo`, `live`).
 * Any server that fails to connect fails the whole call, and the servers
 * already opened are closed.
 */
export async function connectMcpServers(options: ConnectMcpServersOptions): Promise<McpConnection> {
  checkOptions(options);
  const pins = options.pins ?? createMemoryPinStore();
  const pinning = options.pinning ?? 'first-use';
  const listeners = new Map<McpConnectionEventName, Set<(payload: never) => void>>();
  const changeListeners = new Set<(change: McpToolsChange) => void>();
  const servers = new Map<string, UpstreamServer>();
  /** Every name this connection ever offered: what a registry must drop before taking the current set. */
  const owned = new Set<string>();
  let offered: readonly AnyToolDefinition[] = [];
  let closed = false;

  const emit: Emit = <TName extends McpConnectionEventName>(event: TName, payload: McpConnectionEventMap[TName]) => {
    try {
      options.onEvent?.(event, payload);
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

  const collect = (): readonly AnyToolDefinition[] => {
    const seen = new Map<string, string>();
    const tools: AnyToolDefinition[] = [];
    for (const server of servers.values()) {
      for (const entry of server.entries.values()) {
        const other = seen.get(entry.name);
        if (other !== undefined) {
          throw new ToolgateError('DUPLICATE_TOOL', `MCP tools "${other}" and "${server.config.name}/${entry.tool.name}" both become "${entry.name}".`, { tool: entry.name });
        }
        seen.set(entry.name, `${server.config.name}/${entry.tool.name}`);
        if (entry.definition !== undefined) tools.push(entry.definition);
      }
    }
    return Object.freeze(tools.sort((left, right) => (left.name < right.name ? -1 : 1)));
  };

  const publish = (): void => {
    const previous = offered;
    const next = collect();
    const before = new Map(previous.map((tool) => [tool.name, tool]));
    const after = new Map(next.map((tool) => [tool.name, tool]));
    const added = [...after.keys()].filter((name) => before.get(name) !== after.get(name));
    const removed = [...before.keys()].filter((name) => !after.has(name));
    if (added.length === 0 && removed.length === 0) return;
    const remove = Object.freeze([...owned]);
    for (const name of after.keys()) owned.add(name);
    offered = next;
    emit('tools-changed', { added, removed });
    const change: McpToolsChange = Object.freeze({ tools: next, remove: Object.freeze([...new Set([...remove, ...owned])]) });
    for (const listener of changeListeners) listener(change);
  };

  /**
   * Refreshes of one server run one at a time, and at most one waits behind
   * the running one. A notification that arrives meanwhile joins the waiting
   * refresh, which lists after it anyway: a burst of `list_changed` from a
   * hostile upstream costs two listings, not one per notification.
   */
  const refreshes = new Map<string, { last: Promise<void>; waiting: Promise<void> | undefined }>();
  const refreshServer = (server: UpstreamServer): Promise<void> => {
    const state = refreshes.get(server.config.name) ?? { last: Promise.resolve(), waiting: undefined };
    refreshes.set(server.config.name, state);
    if (state.waiting !== undefined) return state.waiting;
    const next = state.last.then(() => {
      state.waiting = undefined;
      return relist(server);
    });
    state.waiting = next;
    state.last = next.catch((error: unknown) => {
      emit('refresh-failed', { server: server.config.name, error: asToolgateError(error).toJSON() });
    });
    return next;
  };
  const relist = async (server: UpstreamServer): Promise<void> => {
    if (closed) return;
    const tools = await listAllTools(server.client);
    const entries = await discoverServerTools({ server: server.config, tools, previous: server.entries, pins, pinning, emit });
    const before = server.entries;
    server.entries = entries;
    try {
      collect();
    } catch (error) {
      server.entries = before;
      throw error;
    }
    publish();
  };

  const withheldError = (entry: UpstreamEntry): ToolgateError =>
    new ToolPolicyError(entry.name, 'definition_withheld', {
      detail:
        entry.reason === 'unapproved'
          ? 'was withheld: its definition has not been approved yet (approve it in the console or the CLI)'
          : 'was withheld: its definition changed since it was approved (review and re-approve it in the console or the CLI)',
    });

  const findWithheld = (name: string): UpstreamEntry | undefined => {
    for (const server of servers.values()) for (const entry of server.entries.values()) if (entry.name === name && entry.status === 'withheld') return entry;
    return undefined;
  };

  try {
    for (const config of options.servers) {
      const client = await openUpstream({
        server: config,
        connect: options,
        onToolsChanged: () => {
          const server = servers.get(config.name);
          if (server !== undefined) refreshServer(server).catch(() => undefined);
        },
      });
      const server: UpstreamServer = { config, client, entries: new Map() };
      servers.set(config.name, server);
      const tools = await listAllTools(client);
      server.entries = await discoverServerTools({ server: config, tools, previous: new Map(), pins, pinning, emit });
    }
    offered = collect();
    for (const tool of offered) owned.add(tool.name);
  } catch (error) {
    await Promise.allSettled([...servers.values()].map((server) => server.client.close()));
    throw error;
  }

  const capability = createMcpCapability({ servers, emit, withheldError });

  const connection: McpConnection = {
    get tools() {
      return offered;
    },
    capability,
    mcpCallGuard: createMcpCallGuard(servers),
    onChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      set.add(listener);
      listeners.set(event, set);
      return () => set.delete(listener);
    },
    applyTo(registry: ToolRegistry): ToolRegistry {
      return registry.with(offered, { remove: [...owned] });
    },
    live(registry: ToolRegistry): LiveRegistry {
      let current = connection.applyTo(registry);
      const subscribers = new Set<(registry: ToolRegistry) => void>();
      connection.onChange((change) => {
        current = current.with(change.tools, { remove: change.remove });
        for (const subscriber of subscribers) subscriber(current);
      });
      return {
        current: () => current,
        subscribe(listener) {
          subscribers.add(listener);
          return () => subscribers.delete(listener);
        },
        explainMissing: (name) => connection.withheldError(name),
      };
    },
    listWithheld(): readonly WithheldDefinition[] {
      const list: WithheldDefinition[] = [];
      for (const server of servers.values()) for (const entry of server.entries.values()) if (entry.status === 'withheld') list.push(describeWithheld(entry));
      return list.sort((left, right) => (left.name < right.name ? -1 : 1));
    },
    async approvePin(name, options = {}) {
      const entry = findWithheld(name);
      const server = entry === undefined ? undefined : servers.get(entry.server);
      if (entry === undefined || server === undefined) throw new ConfigurationError('approvePin', `names no withheld MCP definition "${name.slice(0, 64)}"`);
      if (options.digest !== undefined && options.digest !== entry.digest) {
        throw new ConfigurationError('approvePin', `was given the digest of a definition "${entry.name}" no longer offers: review what it offers now`);
      }
      await pins.set({ server: entry.server, tool: entry.tool.name, digest: entry.digest, approvedAt: new Date().toISOString(), approvedBy: options.by ?? 'approver' });
      // Re-list rather than trust the stored entry: what gets offered is what the upstream offers now, checked against the new pin.
      await refreshServer(server);
    },
    withheldError(name) {
      const entry = findWithheld(name);
      return entry === undefined ? undefined : withheldError(entry);
    },
    async refresh() {
      await Promise.all([...servers.values()].map((server) => refreshServer(server)));
    },
    async close() {
      closed = true;
      await Promise.allSettled([...servers.values()].map((server) => server.client.close()));
    },
  };
  return connection;
}

function checkOptions(options: ConnectMcpServersOptions): void {
  const servers: unknown = (options as Partial<ConnectMcpServersOptions> | null)?.servers;
  if (!Array.isArray(servers)) throw new ConfigurationError('servers', 'must be an array of server configurations');
  const names = new Set<string>();
  for (const [index, entry] of (servers as unknown[]).entries()) {
    const server = (typeof entry === 'object' && entry !== null ? entry : {}) as Partial<Record<string, unknown>>;
    const name = server.name;
    if (!isValidServerName(name)) throw new ConfigurationError(`servers[${index}].name`, 'must match ^[a-z][a-z0-9_]{0,31}$ without "__"');
    if (names.has(name)) throw new ConfigurationError(`servers[${index}].name`, `repeats "${name}"`);
    names.add(name);
    if (server.transport !== 'stdio' && server.transport !== 'http') throw new ConfigurationError(`servers[${index}].transport`, 'must be "stdio" or "http"');
    for (const field of ['timeoutMs', 'maxTotalTimeoutMs'] as const) {
      const value = server[field];
      if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 3_600_000)) {
        throw new ConfigurationError(`servers[${index}].${field}`, 'must be between 1 ms and 1 hour');
      }
    }
    checkServerGovernance(server as Parameters<typeof checkServerGovernance>[0], `servers[${index}]`);
  }
  if (options.pinning !== undefined && options.pinning !== 'first-use' && options.pinning !== 'approve') throw new ConfigurationError('pinning', 'must be "first-use" or "approve"');
}

function asToolgateError(error: unknown): ToolgateError {
  return ToolgateError.isInstance(error) ? error : new ToolgateError('EXECUTION_FAILED', 'Refreshing the MCP tool list failed.', { cause: error });
}
