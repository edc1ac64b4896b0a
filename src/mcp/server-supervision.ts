import type { McpServerConfig, McpServerStatus } from './mcp-types.js';
import { McpServerUnavailableError } from './mcp-server-unavailable-error.js';

export const RETRY_FIRST_MS = 1_000;
export const RETRY_MAX_MS = 60_000;

/** One configured server as its supervisor sees it: its state, and when it is retried. */
export interface ServerSupervision {
  readonly config: McpServerConfig;
  readonly state: McpServerStatus['state'];
  readonly since: number;
  readonly failures: number;
  /** The step of the backoff: failures since it last stayed up for the backoff's cap. */
  readonly backoff: number;
  /** When it last came up, while it is up. */
  readonly upSince: number | undefined;
  readonly error: McpServerUnavailableError | undefined;
  readonly nextRetryAt: number | undefined;
  /** The names it offered before it last stopped. */
  readonly lastNames: ReadonlySet<string>;
}

/** A configured server before its first start. */
export function supervisionStarting(config: McpServerConfig, now: number): ServerSupervision {
  return { config, state: 'retrying', since: now, failures: 0, backoff: 0, upSince: undefined, error: undefined, nextRetryAt: undefined, lastNames: new Set() };
}

/** A retry begins. */
export function supervisionRetrying(entry: ServerSupervision, now: number): ServerSupervision {
  return { ...entry, state: 'retrying', since: now };
}

/** It came up: the failures and the last error are forgotten, the backoff is kept until it stays up. */
export function supervisionUp(entry: ServerSupervision, now: number): ServerSupervision {
  return { ...entry, state: 'up', since: now, upSince: now, failures: 0, error: undefined, nextRetryAt: undefined };
}

/** It failed to start or stopped: down, with the next retry due after a backoff of 1 s doubling to 60 s. */
export function supervisionDown(entry: ServerSupervision, error: unknown, now: number): { readonly supervision: ServerSupervision; readonly delayMs: number } {
  const backoff = entry.backoff + 1;
  const delayMs = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (backoff - 1));
  const unavailable = error instanceof McpServerUnavailableError ? error : new McpServerUnavailableError(entry.config.name, error, '');
  return { supervision: { ...entry, state: 'down', since: now, failures: entry.failures + 1, backoff, error: unavailable, nextRetryAt: now + delayMs }, delayMs };
}

/**
 * It stopped after it was up: it remembers the names it offered. A server
 * that stops within the backoff's cap of coming up keeps its backoff, so one
 * that crashes at once is not restarted every second.
 */
export function supervisionLost(entry: ServerSupervision, names: ReadonlySet<string>, now: number): ServerSupervision {
  const stayedUp = entry.upSince !== undefined && now - entry.upSince >= RETRY_MAX_MS;
  return { ...entry, lastNames: names, upSince: undefined, backoff: stayedUp ? 0 : entry.backoff };
}

/** The status a caller sees, with the number of tools the server offers now. */
export function describeServerStatus(entry: ServerSupervision, tools: number): McpServerStatus {
  return Object.freeze({
    server: entry.config.name,
    state: entry.state,
    since: entry.since,
    failures: entry.failures,
    ...(entry.error === undefined ? {} : { error: entry.error.reason, stderr: entry.error.stderr }),
    ...(entry.state === 'down' && entry.nextRetryAt !== undefined ? { nextRetryAt: entry.nextRetryAt } : {}),
    tools,
  });
}
