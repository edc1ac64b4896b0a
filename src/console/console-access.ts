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
 * our port pass, and only as the one Host a request may carry: of two, Node
 * keeps the first and a proxy in front may forward by the last.
 */
export function hostAllowed(request: IncomingMessage, port: number): boolean {
  const hosts = request.headersDistinct.host;
  if (hosts?.length !== 1) return false;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes((hosts[0] as string).toLowerCase());
}

/**
 * A state-changing request must come from our own origin when the browser
 * says where it comes from. One that carries the cookie must say so: a
 * browser always sends Origin with a POST, and the cookie is what a
 * cross-site form would ride on.
 */
export function originAllowed(request: IncomingMessage, port: number, required: boolean): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return !required;
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`].includes(origin.toLowerCase());
}

/** The cookie the page load sets, named for the port: a browser shares a host's cookies across all its ports, and two consoles must not overwrite each other's. */
export function consoleCookieName(port: number): string {
  return `toolgate_console_${port}`;
}

/** What the page load answers with: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), for this console only. */
export function consoleCookie(port: number, token: string): string {
  return `${consoleCookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

/**
 * Whether the browser says a request comes from the console's own pages or
 * from the person (an address typed or opened from the terminal, a bookmark,
 * a reload): Fetch Metadata's `same-origin` or `none`. A browser treats every
 * port of a host as one site, so the SameSite cookie also rides on what a
 * page on another loopback port asks for without CORS: a window it opens and
 * keeps a handle on, an image, a script tag, a no-cors fetch. A browser too
 * old to say (no header) is judged by the Origin check of a POST alone.
 */
export function fetchSiteAllowed(request: IncomingMessage): boolean {
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

export type ConsoleCredential = 'header' | 'cookie' | 'page-url';

/**
 * How a request shows it holds the token: the `x-toolgate-token` header, or
 * the cookie set when the page loads. The query string of the printed URL
 * counts for loading the page alone (GET /), never for the API or a
 * decision: a URL is kept in history and logs, and a link can carry it.
 */
export function authenticate(request: IncomingMessage, url: URL, port: number, token: string): ConsoleCredential | undefined {
  const header = request.headers['x-toolgate-token'];
  if (tokenMatches(token, typeof header === 'string' ? header : undefined)) return 'header';
  // Before the cookie: the printed address holds the token itself, wherever the person opened it from.
  if (request.method === 'GET' && url.pathname === '/' && tokenMatches(token, url.searchParams.get('token'))) return 'page-url';
  if (cookieValues(request, consoleCookieName(port)).some((value) => tokenMatches(token, value))) return 'cookie';
  return undefined;
}

function cookieValues(request: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  for (const pair of (request.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === name) values.push(pair.slice(at + 1).trim());
  }
  return values;
}
