import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError, ToolgateError, ToolPolicyError, ToolUnavailableError, type AnyToolDefinition, type ToolRegistry } from '../core/index.js';
import { createMcpCapability, type UpstreamServer } from './create-mcp-capability.js';
import { createMcpCallGuard } from './guard-mcp-call.js';
import { describeWithheld, discoverServerTools, type Emit, type UpstreamEntry } from './discover-server-tools.js';
import { pinnedDefinition } from './definition-digest.js';
import { createMemoryPinStore } from './pin-store.js';
import { isValidServerName } from './is-valid-server-name.js';
import type {
  ConnectMcpServersOptions,
  LiveRegistry,
  McpConnection,
  McpConnectionEventMap,
  McpConnectionEventName,
  McpServerConfig,
  McpServerStatus,
  McpToolsChange,
  WithheldDefinition,
} from './mcp-types.js';
import { listAllTools } from './list-all-tools.js';
import { McpServerUnavailableError } from './mcp-server-unavailable-error.js';
import { openUpstream, unavailable } from './open-upstream.js';
import { checkServerGovernance } from './upstream-governance.js';

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
    // A server that went down since: its replacement lists for itself.
    if (closed || servers.get(server.config.name) !== server) return;
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

  /** One supervisor per configured server, in configuration order: its status, and the retry that is due. */
  const supervised = new Map<string, Supervised>(options.servers.map((config) => [config.name, { config, state: 'retrying', since: Date.now(), failures: 0, backoff: 0, upSince: undefined, timer: undefined, lastNames: new Set() }]));

  /** Open one server, list and pin its tools. A server that does not start or answer in time throws `McpServerUnavailableError`. */
  const start = async (config: McpServerConfig): Promise<UpstreamServer> => {
    const timeoutMs = config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const opened = await openUpstream({
      server: config,
      connect: options,
      timeoutMs,
      onToolsChanged: () => {
        const server = servers.get(config.name);
        if (server !== undefined) refreshServer(server).catch(() => undefined);
      },
    });
    const server: UpstreamServer = { config, client: opened.client, stderr: opened.stderr, entries: new Map() };
    try {
      let tools: Tool[];
      try {
        tools = await listAllTools(opened.client, AbortSignal.timeout(timeoutMs));
      } catch (error) {
        throw await unavailable(config.name, error, opened.stderr);
      }
      server.entries = await discoverServerTools({ server: config, tools, previous: new Map(), pins, pinning, emit });
    } catch (error) {
      await opened.client.close().catch(() => undefined);
      throw error;
    }
    // A server that exits or drops the connection later is down from that moment, and retried.
    opened.client.onclose = () => {
      if (!closed && servers.get(config.name) === server) lost(server);
    };
    return server;
  };

  const statusOf = (entry: Supervised): McpServerStatus =>
    Object.freeze({
      server: entry.config.name,
      state: entry.state,
      since: entry.since,
      failures: entry.failures,
      ...(entry.error === undefined ? {} : { error: entry.error.reason, stderr: entry.error.stderr }),
      ...(entry.state === 'down' && entry.nextRetryAt !== undefined ? { nextRetryAt: entry.nextRetryAt } : {}),
      tools: [...(servers.get(entry.config.name)?.entries.values() ?? [])].filter((tool) => tool.status === 'offered').length,
    });

  const markUp = (entry: Supervised, server: UpstreamServer): void => {
    servers.set(entry.config.name, server);
    entry.state = 'up';
    entry.since = Date.now();
    entry.upSince = entry.since;
    entry.failures = 0;
    entry.error = undefined;
    entry.nextRetryAt = undefined;
    emit('server-up', statusOf(entry));
  };

  const markDown = (entry: Supervised, error: unknown): void => {
    entry.failures += 1;
    entry.backoff += 1;
    entry.error = error instanceof McpServerUnavailableError ? error : new McpServerUnavailableError(entry.config.name, error, '');
    entry.state = 'down';
    entry.since = Date.now();
    const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (entry.backoff - 1));
    entry.nextRetryAt = entry.since + delay;
    entry.timer = setTimeout(() => void retry(entry), delay);
    // A retry never keeps the process alive on its own: a gateway has its listener for that.
    entry.timer.unref();
    emit('server-down', statusOf(entry));
  };

  const retry = async (entry: Supervised): Promise<void> => {
    entry.timer = undefined;
    if (closed) return;
    entry.state = 'retrying';
    entry.since = Date.now();
    let server: UpstreamServer;
    try {
      server = await start(entry.config);
    } catch (error) {
      if (!closed) markDown(entry, error);
      return;
    }
    if (closed) {
      await server.client.close().catch(() => undefined);
      return;
    }
    servers.set(entry.config.name, server);
    try {
      publish();
    } catch (error) {
      // Its tools would collide with another server's: it stays down, and says so.
      servers.delete(entry.config.name);
      await server.client.close().catch(() => undefined);
      markDown(entry, error);
      return;
    }
    markUp(entry, server);
  };

  const lost = (server: UpstreamServer): void => {
    const entry = supervised.get(server.config.name);
    if (entry === undefined) return;
    servers.delete(server.config.name);
    entry.lastNames = new Set([...server.entries.values()].map((tool) => tool.name));
    // A server that stops within the backoff's cap of coming up keeps its backoff, so one that crashes at once is not restarted every second.
    if (entry.upSince !== undefined && Date.now() - entry.upSince >= RETRY_MAX_MS) entry.backoff = 0;
    entry.upSince = undefined;
    publish();
    const cause = new Error('the server closed the connection');
    markDown(entry, new McpServerUnavailableError(server.config.name, cause, server.stderr.text()));
    // What it wrote as it exited may still be in the pipe: the status shows it once it has arrived.
    setImmediate(() => {
      if (entry.state === 'down' && entry.error?.cause === cause) entry.error = new McpServerUnavailableError(server.config.name, cause, server.stderr.text());
    });
  };

  /** A call to a configured server that is down: typed and retryable, without the failure's own words (they may name paths). */
  const downError = (serverName: string, label: string): ToolgateError | undefined => {
    if (!supervised.has(serverName) || servers.has(serverName)) return undefined;
    return new ToolUnavailableError(label, 'mcp', `its MCP server "${serverName}" is down and is being retried`);
  };

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
    const entry = supervised.get(options.servers[index]?.name ?? '') as Supervised;
    if (result.status === 'fulfilled') markUp(entry, result.value);
    else markDown(entry, result.reason);
  }

  /** A name a down server offered before it stopped: why it is missing now. */
  const explainDown = (name: string): ToolgateError | undefined => {
    for (const entry of supervised.values()) if (entry.lastNames.has(name)) return downError(entry.config.name, name);
    return undefined;
  };

  const capability = createMcpCapability({ servers, emit, withheldError, downError });

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
        explainMissing: (name) => connection.withheldError(name) ?? explainDown(name),
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
      await pins.set({ server: entry.server, tool: entry.tool.name, digest: entry.digest, approvedAt: new Date().toISOString(), approvedBy: options.by ?? 'approver', definition: pinnedDefinition(entry.tool) });
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
    servers(): readonly McpServerStatus[] {
      return [...supervised.values()].map(statusOf);
    },
    async close() {
      closed = true;
      for (const entry of supervised.values()) clearTimeout(entry.timer);
      await Promise.allSettled([...servers.values()].map((server) => server.client.close()));
    },
  };
  return connection;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

interface Supervised {
  readonly config: McpServerConfig;
  state: McpServerStatus['state'];
  since: number;
  failures: number;
  /** The step of the backoff: failures since it last stayed up for the backoff's cap. */
  backoff: number;
  /** When it last came up, while it is up. */
  upSince: number | undefined;
  error?: McpServerUnavailableError | undefined;
  nextRetryAt?: number | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The names it offered before it last stopped. */
  lastNames: ReadonlySet<string>;
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
    for (const field of ['timeoutMs', 'maxTotalTimeoutMs', 'connectTimeoutMs'] as const) {
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
