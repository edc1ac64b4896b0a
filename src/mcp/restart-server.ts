import type { UpstreamServer } from './create-mcp-capability.js';
import type { McpServerConfig } from './mcp-types.js';

/** How a restart ended: the server is up and offered, it is still down (and why), or the connection closed meanwhile. */
export type RestartOutcome = { readonly kind: 'up'; readonly server: UpstreamServer } | { readonly kind: 'down'; readonly error: unknown } | { readonly kind: 'closed' };

export interface RestartServerOptions {
  /** The servers that are up, by name: a restarted server is added before its tools are offered. */
  readonly servers: Map<string, UpstreamServer>;
  /** Open one server and list its tools; throws when it does not come up. */
  readonly start: (config: McpServerConfig) => Promise<UpstreamServer>;
  /** Offer the tools of the servers that are up now; throws on a name collision. */
  readonly publish: () => void;
  readonly isClosed: () => boolean;
}

/**
 * Start a server that is down and offer its tools. A server whose tools
 * would collide with another's is closed again and stays down; one that
 * comes up after the connection closed is closed at once.
 */
export async function restartServer(config: McpServerConfig, options: RestartServerOptions): Promise<RestartOutcome> {
  let server: UpstreamServer;
  try {
    server = await options.start(config);
  } catch (error) {
    return options.isClosed() ? { kind: 'closed' } : { kind: 'down', error };
  }
  if (options.isClosed()) {
    await server.client.close().catch(() => undefined);
    return { kind: 'closed' };
  }
  options.servers.set(config.name, server);
  try {
    options.publish();
  } catch (error) {
    // Its tools would collide with another server's: it stays down, and says so.
    options.servers.delete(config.name);
    await server.client.close().catch(() => undefined);
    return { kind: 'down', error };
  }
  return { kind: 'up', server };
}
