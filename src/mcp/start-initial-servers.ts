import type { UpstreamServer } from './create-mcp-capability.js';
import type { McpServerConfig } from './mcp-types.js';
import { McpServerUnavailableError } from './mcp-server-unavailable-error.js';

/** How a configured server came out of the first start: up, or down for `reason` and left to be retried. */
export type InitialServer = { readonly type: 'up'; readonly name: string; readonly server: UpstreamServer } | { readonly type: 'down'; readonly name: string; readonly reason: unknown };

/**
 * Start every configured server side by side: one that hangs in its
 * handshake delays none of the others. A server that is unavailable is only
 * down. Any other failure — a configuration mistake, a corrupt pin store, or
 * `accept` refusing the servers that came up — fails the whole start, and
 * nothing started is left running.
 */
export async function startInitialServers(
  configs: readonly McpServerConfig[],
  start: (config: McpServerConfig) => Promise<UpstreamServer>,
  accept: (up: ReadonlyMap<string, UpstreamServer>) => void,
): Promise<readonly InitialServer[]> {
  const results = await Promise.allSettled(configs.map((config) => start(config)));
  const outcomes = results.map((result, index): InitialServer => {
    const name = configs[index]?.name ?? '';
    return result.status === 'fulfilled' ? { type: 'up', name, server: result.value } : { type: 'down', name, reason: result.reason };
  });
  const fatal = results.find((result): result is PromiseRejectedResult => result.status === 'rejected' && !(result.reason instanceof McpServerUnavailableError));
  try {
    if (fatal !== undefined) throw fatal.reason;
    accept(new Map(outcomes.flatMap((outcome) => (outcome.type === 'up' ? [[outcome.name, outcome.server] as const] : []))));
  } catch (error) {
    await Promise.allSettled(outcomes.flatMap((outcome) => (outcome.type === 'up' ? [outcome.server.client.close()] : [])));
    throw error;
  }
  return outcomes;
}
