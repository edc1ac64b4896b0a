import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { consoleCookie } from './console-access.js';
import { renderConsolePage } from './console-page.js';

/** The header's ◆, in its accent colour. */
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M8 1 15 8 8 15 1 8Z" fill="#5ab0ff"/></svg>';

/** Sent with every console answer: never cached, never framed, never sniffed, no referrer. */
export function securityHeaders(): Record<string, string> {
  return { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...securityHeaders(), 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

export function sendFavicon(response: ServerResponse): void {
  response.writeHead(200, { ...securityHeaders(), 'content-type': 'image/svg+xml', 'content-security-policy': "default-src 'none'" });
  response.end(FAVICON);
}

/** The page, with a fresh nonce for its script and style, and the cookie its later requests carry the token in. */
export function sendPage(response: ServerResponse, port: number, token: string): void {
  const nonce = randomBytes(16).toString('base64');
  response.writeHead(200, {
    ...securityHeaders(),
    'content-type': 'text/html; charset=utf-8',
    // From here on the page's requests carry the token in this cookie; its script takes the token out of the address bar.
    'set-cookie': consoleCookie(port, token),
    'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  });
  response.end(renderConsolePage(nonce));
}
