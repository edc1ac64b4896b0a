import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A random per-start token, printed in the console URL. */
export function createConsoleToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Constant-time comparison, so the token cannot be guessed byte by byte. */
export function tokenMatches(expected: string, given: string | undefined | null): boolean {
  if (typeof given !== 'string') return false;
  const left = Buffer.from(expected);
  const right = Buffer.from(given);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The DNS-rebinding defence: a page on another origin that resolves its own
 * name to 127.0.0.1 still sends its own Host header. Only loopback names on
 * our port pass.
 */
export function hostAllowed(request: IncomingMessage, port: number): boolean {
  const host = request.headers.host;
  if (typeof host !== 'string') return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(host.toLowerCase());
}

/** A state-changing request must come from our own origin when the browser says where it comes from. */
export function originAllowed(request: IncomingMessage, port: number): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`].includes(origin.toLowerCase());
}

/** The token from the header the page sends, or the query (for EventSource, which cannot set headers). */
export function requestToken(request: IncomingMessage, url: URL): string | null {
  const header = request.headers['x-toolgate-token'];
  if (typeof header === 'string') return header;
  return url.searchParams.get('token');
}
