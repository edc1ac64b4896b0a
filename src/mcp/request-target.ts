import type { IncomingMessage } from 'node:http';

/**
 * The URL a request names, read against `base`; undefined when its target is
 * no URL at all (`GET http://[`, a port past 65535). Node passes such a target
 * through, and `new URL` throws on it: the console and the MCP endpoint
 * answered 500 "internal error" to any local process that sent one, token or
 * not, and the console wrote the parser's stack to the gateway's stderr (over
 * stdio, the MCP client's log) each time. The client's error, answered 400.
 */
export function requestTarget(request: IncomingMessage, base: string): URL | undefined {
  try {
    return new URL(request.url ?? '/', base);
  } catch {
    return undefined;
  }
}

/** What a server answers a request whose target is no URL. */
export const MALFORMED_TARGET = 'malformed request target';
