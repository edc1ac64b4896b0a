import type { UpstreamServer } from './create-mcp-capability.js';
import { discoverServerTools, type DiscoverServerToolsOptions } from './discover-server-tools.js';
import { listAllTools, type UpstreamListing } from './list-all-tools.js';
import type { ConnectMcpServersOptions, McpServerConfig } from './mcp-types.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

export interface StartUpstreamServerOptions extends Pick<DiscoverServerToolsOptions, 'pins' | 'pinning' | 'emit'> {
  readonly config: McpServerConfig;
  readonly connect: ConnectMcpServersOptions;
  /** Called on the server's `notifications/tools/list_changed`. */
  readonly onToolsChanged: () => void;
  /** Called when the server exits or drops the connection after it started. */
  readonly onClose: (server: UpstreamServer) => void;
}

/** Open one server, list and pin its tools. A server that does not start or answer in time throws `McpServerUnavailableError`; nothing it opened is left running. */
export async function startUpstreamServer(options: StartUpstreamServerOptions): Promise<UpstreamServer> {
  const { config } = options;
  const timeoutMs = config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  // The MCP SDK's client loads with the first upstream: a process that connects none starts without it.
  const { openUpstream, unavailable } = await import('./open-upstream.js');
  const opened = await openUpstream({ server: config, connect: options.connect, timeoutMs, onToolsChanged: options.onToolsChanged });
  const server: UpstreamServer = { config, client: opened.client, stderr: opened.stderr, entries: new Map() };
  try {
    let listing: UpstreamListing;
    try {
      listing = await listAllTools(opened.client, AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw await unavailable(config.name, error, opened.stderr);
    }
    const servers = options.connect.servers.map((entry) => entry.name);
    server.entries = await discoverServerTools({ server: config, servers, tools: listing.tools, setAside: listing.setAside, previous: new Map(), pins: options.pins, pinning: options.pinning, emit: options.emit });
  } catch (error) {
    await opened.client.close().catch(() => undefined);
    throw error;
  }
  opened.client.onclose = () => {
    options.onClose(server);
  };
  return server;
}
