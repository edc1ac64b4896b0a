import { ToolUnavailableError, type ToolgateError } from '../core/internal.js';
import { upstreamCloseReason } from './bound-stdio-writes.js';
import type { UpstreamServer } from './create-mcp-capability.js';
import type { Emit } from './discover-server-tools.js';
import { McpServerUnavailableError } from './mcp-server-unavailable-error.js';
import type { McpServerConfig, McpServerStatus } from './mcp-types.js';
import { restartServer } from './restart-server.js';
import { describeServerStatus, supervisionDown, supervisionLost, supervisionRetrying, supervisionStarting, supervisionUp, type ServerSupervision } from './server-supervision.js';

export interface ServerSupervisorOptions {
  readonly configs: readonly McpServerConfig[];
  /** The servers that are up, by name: the supervisor adds and removes them. */
  readonly servers: Map<string, UpstreamServer>;
  /** Open one server and list its tools; throws `McpServerUnavailableError` when it does not come up. */
  readonly start: (config: McpServerConfig) => Promise<UpstreamServer>;
  /** Offer the tools of the servers that are up now; throws on a name collision. */
  readonly publish: () => void;
  readonly isClosed: () => boolean;
  readonly emit: Emit;
}

export interface ServerSupervisor {
  /** A server came up (at connect): it is offered. */
  up(name: string, server: UpstreamServer): void;
  /** A server did not come up: it is retried. */
  down(name: string, error: unknown): void;
  /** A server that was up stopped: its tools are withdrawn and it is retried. */
  lost(server: UpstreamServer): void;
  /** A call to a configured server that is down: typed and retryable, without the failure's own words (they may name paths). */
  readonly downError: (serverName: string, label: string) => ToolgateError | undefined;
  /** A name a down server offered before it stopped: why it is missing now. */
  explainDown(name: string): ToolgateError | undefined;
  /** Every configured server's status, in configuration order. */
  statuses(): readonly McpServerStatus[];
  /** Cancel the retries that are due. */
  stop(): void;
}

/** One supervisor per configured server: its status, and the retry that is due, with backoff. */
export function createServerSupervisor(options: ServerSupervisorOptions): ServerSupervisor {
  const { servers, emit } = options;
  const supervised = new Map<string, ServerSupervision>(options.configs.map((config) => [config.name, supervisionStarting(config, Date.now())]));
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const statusOf = (entry: ServerSupervision): McpServerStatus =>
    describeServerStatus(entry, [...(servers.get(entry.config.name)?.entries.values() ?? [])].filter((tool) => tool.status === 'offered').length);
  const current = (name: string): ServerSupervision => supervised.get(name) as ServerSupervision;

  const up = (name: string, server: UpstreamServer): void => {
    servers.set(name, server);
    const entry = supervisionUp(current(name), Date.now());
    supervised.set(name, entry);
    emit('server-up', statusOf(entry));
  };

  const down = (name: string, error: unknown): void => {
    const { supervision, delayMs } = supervisionDown(current(name), error, Date.now());
    supervised.set(name, supervision);
    const timer = setTimeout(() => void retry(name), delayMs);
    // A retry never keeps the process alive on its own: a gateway has its listener for that.
    timer.unref();
    timers.set(name, timer);
    emit('server-down', statusOf(supervision));
  };

  const retry = async (name: string): Promise<void> => {
    timers.delete(name);
    if (options.isClosed()) return;
    supervised.set(name, supervisionRetrying(current(name), Date.now()));
    const outcome = await restartServer(current(name).config, options);
    if (outcome.kind === 'down') down(name, outcome.error);
    else if (outcome.kind === 'up') up(name, outcome.server);
  };

  const downError = (serverName: string, label: string): ToolgateError | undefined => {
    if (!supervised.has(serverName) || servers.has(serverName)) return undefined;
    return new ToolUnavailableError(label, 'mcp', `its MCP server "${serverName}" is down and is being retried`);
  };

  return {
    up,
    down,
    lost(server) {
      const name = server.config.name;
      if (!supervised.has(name)) return;
      servers.delete(name);
      supervised.set(name, supervisionLost(current(name), new Set([...server.entries.values()].map((tool) => tool.name)), Date.now()));
      options.publish();
      const cause = new Error(upstreamCloseReason(server.client) ?? 'the server closed the connection');
      down(name, new McpServerUnavailableError(name, cause, server.stderr.text()));
      // What it wrote as it exited may still be in the pipe: the status shows it once it has arrived.
      setImmediate(() => {
        const entry = current(name);
        if (entry.state === 'down' && entry.error?.cause === cause) supervised.set(name, { ...entry, error: new McpServerUnavailableError(name, cause, server.stderr.text()) });
      });
    },
    downError,
    explainDown(name) {
      for (const entry of supervised.values()) if (entry.lastNames.has(name)) return downError(entry.config.name, name);
      return undefined;
    },
    statuses: () => [...supervised.values()].map(statusOf),
    stop() {
      for (const timer of timers.values()) clearTimeout(timer);
    },
  };
}
