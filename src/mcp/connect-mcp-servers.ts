import { ToolgateError } from '../core/internal.js';
import { checkConnectOptions } from './check-connect-options.js';
import type { UpstreamServer } from './create-mcp-capability.js';
import { createMcpConnection } from './create-mcp-connection.js';
import { createMcpEventHub } from './create-mcp-event-hub.js';
import { createRefreshScheduler } from './create-refresh-scheduler.js';
import { createServerSupervisor } from './create-server-supervisor.js';
import { discoverServerTools } from './discover-server-tools.js';
import { createMemoryPinStore } from './pin-store.js';
import type { ConnectMcpServersOptions, McpConnection, McpServerConfig } from './mcp-types.js';
import { listAllTools } from './list-all-tools.js';
import { createOfferedToolSet } from './offered-tool-set.js';
import { startInitialServers } from './start-initial-servers.js';
import { startUpstreamServer } from './start-upstream-server.js';

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
 * offered. A configuration mistake or a corrupt pin store still fails the
 * whole call, and the servers already opened are closed; a tool-name
 * collision leaves out the colliding tools alone (`collectOfferedTools`).
 */
export async function connectMcpServers(options: ConnectMcpServersOptions): Promise<McpConnection> {
  checkConnectOptions(options);
  const pins = options.pins ?? createMemoryPinStore();
  const pinning = options.pinning ?? 'first-use';
  const events = createMcpEventHub(options.onEvent);
  const emit = events.emit;
  const servers = new Map<string, UpstreamServer>();
  const offered = createOfferedToolSet(servers, emit);
  let closed = false;

  const refreshServer = createRefreshScheduler<UpstreamServer>({
    keyOf: (server) => server.config.name,
    relist: async (server) => {
      // A server that went down since: its replacement lists for itself.
      if (closed || servers.get(server.config.name) !== server) return;
      const { tools, setAside } = await listAllTools(server.client);
      const before = server.entries;
      server.entries = await discoverServerTools({ server: server.config, servers: options.servers.map((entry) => entry.name), tools, setAside, previous: before, pins, pinning, emit });
      offered.publish();
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
        if (server === undefined) return;
        // Its calls wait for this listing (wait-for-relisting.ts): the server has said its definitions changed.
        const relisting = refreshServer(server).catch(() => undefined);
        server.relisting = relisting;
        void relisting.then(() => {
          if (server.relisting === relisting) server.relisting = undefined;
        });
      },
      // A server that exits or drops the connection later is down from that moment, and retried.
      onClose: (server) => {
        if (!closed && servers.get(config.name) === server) supervisor.lost(server);
      },
    });

  const supervisor = createServerSupervisor({ configs: options.servers, servers, start, publish: offered.publish, isClosed: () => closed, emit });

  const initial = await startInitialServers(options.servers, start, (up) => {
    for (const [name, server] of up) servers.set(name, server);
    offered.adopt();
  });
  for (const outcome of initial) {
    if (outcome.type === 'up') supervisor.up(outcome.name, outcome.server);
    else supervisor.down(outcome.name, outcome.reason);
  }

  return createMcpConnection({
    servers,
    offered,
    events,
    supervisor,
    pins,
    refreshServer,
    async close() {
      closed = true;
      supervisor.stop();
      await Promise.allSettled([...servers.values()].map((server) => server.client.close()));
    },
  });
}

function asToolgateError(error: unknown): ToolgateError {
  return ToolgateError.isInstance(error) ? error : new ToolgateError('EXECUTION_FAILED', 'Refreshing the MCP tool list failed.', { cause: error });
}
