import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeHttpServer, createBoundedHttpServer } from '../mcp/create-bounded-http-server.js';
import type { AddressInfo } from 'node:net';
import { MALFORMED_TARGET, requestTarget } from '../mcp/request-target.js';
import { answerConsoleRoute } from './answer-console-route.js';
import { authenticate, createConsoleToken, fetchSiteAllowed, hostAllowed, originAllowed } from './console-access.js';
import { sendFavicon, sendJson } from './console-responses.js';
import type { AuditSource, ConsoleOptions, ConsoleServer } from './console-types.js';
import { LiveFeed } from './live-feed.js';
import { createReceiptFeed } from './receipt-feed.js';
import { routeConsoleRequest } from './route-console-request.js';

/**
 * The web console: live calls over SSE, pending approvals with their
 * secret-free previews, receipts, the policy in force, the chain status and
 * withheld MCP definitions. Bound to 127.0.0.1 only; every request needs
 * the random token printed in the start-up URL (in the URL for the page load
 * only, then in a cookie or a header), and a loopback Host header; a request
 * the cookie alone carries must come from the console's own origin.
 */
export async function startConsole(options: ConsoleOptions): Promise<ConsoleServer> {
  const token = options.token ?? createConsoleToken();
  const feed = options.audit === undefined ? createReceiptFeed(options.registry) : undefined;
  const audit: AuditSource = options.audit ?? (feed as AuditSource);
  const live = new LiveFeed(options.registry, options.approvals);

  let port = 0;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = requestTarget(request, `http://127.0.0.1:${port}`);
    if (url === undefined) return sendJson(response, 400, { error: MALFORMED_TARGET });
    if (!hostAllowed(request, port)) return sendJson(response, 421, { error: 'unexpected Host header' });
    const method = request.method ?? 'GET';
    const route = routeConsoleRequest(method, url.pathname);
    // The browser asks for it on its own, without the token: answered with the logo, so no request of the page is refused.
    if (route.type === 'favicon') return sendFavicon(response);
    const credential = authenticate(request, url, port, token);
    if (credential === undefined) return sendJson(response, 401, { error: 'a valid console token is required' });
    if (credential === 'cookie' && !fetchSiteAllowed(request)) return sendJson(response, 403, { error: 'request from another site refused' });
    if (method !== 'GET' && !originAllowed(request, port, credential === 'cookie')) return sendJson(response, 403, { error: 'cross-origin request refused' });
    return answerConsoleRoute(route, request, response, url, { options, audit, live, port, token });
  };
  const server = createBoundedHttpServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.warn('toolgate console: request failed', error);
      if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
      else response.end();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    close: async () => {
      live.stop();
      feed?.stop();
      await closeHttpServer(server);
    },
  };
}
