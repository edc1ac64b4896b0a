import { ConfigurationError } from '../core/internal.js';
import type { ServeHttpOptions } from './serve-http.js';

/** What `serveHttp` binds and how many sessions it keeps, each option resolved to its default. */
export interface ResolvedServeHttpOptions {
  readonly host: string;
  readonly path: string;
  readonly maxSessions: number;
  readonly idleMs: number;
}

const LOOPBACK_BINDS = ['127.0.0.1', '::1', 'localhost'];

/** Refuse a listener that would be reachable without its defences, before anything binds. */
export function resolveServeHttpOptions(options: ServeHttpOptions): ResolvedServeHttpOptions {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK_BINDS.includes(host) && (options.allowedHosts === undefined || options.token === undefined)) {
    throw new ConfigurationError('http.host', 'binds beyond loopback; give allowedHosts and a token explicitly');
  }
  // The SDK checks Host and Origin only against a non-empty list: an empty one would switch the DNS-rebinding defence off.
  if (options.allowedHosts?.length === 0) throw new ConfigurationError('http.allowedHosts', 'must name at least one host (leave it out for the loopback names)');
  if (options.allowedOrigins?.length === 0) throw new ConfigurationError('http.allowedOrigins', 'must name at least one origin (leave it out for the loopback origins)');
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  if (!(Number.isFinite(idleMs) && idleMs >= 1)) throw new ConfigurationError('http.sessionIdleMs', 'must be a positive number of milliseconds');
  return { host, path: options.path ?? '/mcp', maxSessions: options.maxSessions ?? 64, idleMs };
}
