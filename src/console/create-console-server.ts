import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ToolgateError, type ToolApprovalDecision } from '../core/internal.js';
import { authenticate, consoleCookie, createConsoleToken, hostAllowed, originAllowed } from './console-access.js';
import { renderConsolePage } from './console-page.js';
import type { ApprovalChange, AuditSource, ConsoleHello, ConsoleOptions, ConsoleServer, LiveCall, ReceiptFilter } from './console-types.js';
import { createReceiptFeed, RECEIPT_PAGE } from './receipt-feed.js';
import { reviewWithheld } from './review-withheld.js';
import { routeConsoleRequest } from './route-console-request.js';
import { summarizeEvent } from './summarize-event.js';

const MAX_BODY = 16 * 1024;
const MAX_RECEIPT_PAGE = 200;
/** The header's ◆, in its accent colour. */
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M8 1 15 8 8 15 1 8Z" fill="#5ab0ff"/></svg>';

/**
 * The web console: live calls over SSE, pending approvals with their
 * secret-free previews, receipts, the policy in force, the chain status and
 * withheld MCP definitions. Bound to 127.0.0.1 only; every request needs
 * the random token printed in the start-up URL (in the URL for the page load
 * only, then in a cookie or a header), and a loopback Host header.
 */
export async function startConsole(options: ConsoleOptions): Promise<ConsoleServer> {
  const token = options.token ?? createConsoleToken();
  const feed = options.audit === undefined ? createReceiptFeed(options.registry) : undefined;
  const audit: AuditSource = options.audit ?? (feed as AuditSource);
  const streams = new Set<ServerResponse>();
  const recent: LiveCall[] = [];

  const broadcast = (type: string, data: unknown): void => {
    const frame = `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const stream of streams) stream.write(frame);
  };
  const stopEvents = (['tool-call-requested', 'approval-requested', 'tool-result'] as const).map((name) =>
    options.registry.on(name, (event) => {
      const call = summarizeEvent(name, event);
      const index = recent.findIndex((entry) => entry.callId === call.callId);
      if (index === -1) recent.push(call);
      else recent[index] = { ...recent[index], ...call };
      if (recent.length > 200) recent.shift();
      broadcast('call', call);
    }),
  );
  const stopApprovals = options.approvals.subscribe((change: ApprovalChange) => broadcast('approval', change));

  let port = 0;
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.warn('toolgate console: request failed', error);
      if (!response.headersSent) send(response, 500, { error: 'internal error' });
      else response.end();
    });
  });

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
    if (!hostAllowed(request, port)) return send(response, 421, { error: 'unexpected Host header' });
    const method = request.method ?? 'GET';
    const route = routeConsoleRequest(method, url.pathname);
    // The browser asks for it on its own, without the token: answered with the logo, so no request of the page is refused.
    if (route.type === 'favicon') {
      response.writeHead(200, { ...securityHeaders(), 'content-type': 'image/svg+xml', 'content-security-policy': "default-src 'none'" });
      response.end(FAVICON);
      return;
    }
    const credential = authenticate(request, url, port, token);
    if (credential === undefined) return send(response, 401, { error: 'a valid console token is required' });
    if (method !== 'GET' && !originAllowed(request, port, credential === 'cookie')) return send(response, 403, { error: 'cross-origin request refused' });

    switch (route.type) {
      case 'page': {
        const nonce = randomBytes(16).toString('base64');
        response.writeHead(200, {
          ...securityHeaders(),
          'content-type': 'text/html; charset=utf-8',
          // From here on the page's requests carry the token in this cookie; its script takes the token out of the address bar.
          'set-cookie': consoleCookie(port, token),
          'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
        });
        response.end(renderConsolePage(nonce));
        return;
      }
      case 'events': {
        response.writeHead(200, { ...securityHeaders(), 'content-type': 'text/event-stream', connection: 'keep-alive' });
        const hello: ConsoleHello = { calls: recent, approvals: options.approvals.pending(), closed: options.approvals.closed() };
        response.write(`event: hello\ndata: ${JSON.stringify(hello)}\n\n`);
        streams.add(response);
        request.on('close', () => streams.delete(response));
        return;
      }
      case 'approvals':
        return send(response, 200, options.approvals.pending());
      case 'closed-approvals':
        return send(response, 200, options.approvals.closed());
      case 'decide': {
        const decision = toDecision(await readJson(request));
        if (decision === undefined) return send(response, 400, { error: 'decision must be once, session, always or reject' });
        const found = options.approvals.decide(route.approvalId, decision);
        return send(response, found ? 200 : 404, found ? { ok: true } : { error: 'no such pending approval' });
      }
      case 'calls':
        return send(response, 200, recent);
      case 'receipts':
        return send(response, 200, await audit.list(receiptFilter(url)));
      case 'receipt': {
        const detail = await audit.get(decodeURIComponent(route.receiptId));
        return detail === undefined ? send(response, 404, { error: 'no such receipt' }) : send(response, 200, detail);
      }
      case 'policy':
        return send(response, 200, options.describePolicy?.() ?? { version: options.registry.policy.version });
      case 'verify':
        return send(response, 200, await audit.verify());
      case 'unresolved':
        return send(response, 200, (await options.unresolved?.()) ?? []);
      case 'withheld':
        return send(response, 200, reviewWithheld((await options.withheld?.list()) ?? []));
      case 'approve-withheld': {
        if (options.withheld === undefined) return send(response, 404, { error: 'no MCP pinning is configured' });
        const digest = (await readJson(request)) as { digest?: unknown } | undefined;
        if (typeof digest?.digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest.digest)) return send(response, 400, { error: 'digest must be the SHA-256 of the definition you reviewed' });
        try {
          await options.withheld.approve(route.name, digest.digest);
        } catch (error) {
          // Not withheld any more, or changed again since it was shown: the person must look again.
          if (error instanceof ToolgateError && error.code === 'CONFIGURATION_INVALID') return send(response, 409, { error: error.message });
          throw error;
        }
        broadcast('withheld', { approved: route.name });
        return send(response, 200, { ok: true });
      }
      case 'not-found':
        return send(response, 404, { error: 'not found' });
    }
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const keepAlive = setInterval(() => {
    for (const stream of streams) stream.write(': keep-alive\n\n');
  }, 15_000);
  keepAlive.unref();

  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    close: async () => {
      clearInterval(keepAlive);
      for (const stop of stopEvents) stop();
      stopApprovals();
      feed?.stop();
      for (const stream of streams) stream.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function securityHeaders(): Record<string, string> {
  return { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...securityHeaders(), 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

function receiptFilter(url: URL): ReceiptFilter {
  const get = (name: string): string | undefined => url.searchParams.get(name) || undefined;
  const since = Number(get('since'));
  const before = Number(get('before'));
  const limit = Number(get('limit'));
  return {
    ...(get('tool') === undefined ? {} : { tool: get('tool') }),
    ...(get('status') === undefined ? {} : { status: get('status') }),
    ...(get('agent') === undefined ? {} : { agent: get('agent') }),
    ...(get('run') === undefined ? {} : { runId: get('run') }),
    ...(get('q') === undefined ? {} : { search: get('q')?.slice(0, 200) }),
    ...(Number.isFinite(since) && since > 0 ? { since } : {}),
    ...(Number.isSafeInteger(before) && before > 0 ? { before } : {}),
    // A page is bounded whatever the address asks: a list of thousands would stall the page.
    limit: Number.isSafeInteger(limit) && limit > 0 ? Math.min(limit, MAX_RECEIPT_PAGE) : RECEIPT_PAGE,
  } as ReceiptFilter;
}

function toDecision(body: unknown): ToolApprovalDecision | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { decision, reason } = body as { decision?: unknown; reason?: unknown };
  const by = 'console';
  if (decision === 'once' || decision === 'session' || decision === 'always') return { outcome: 'approve', scope: decision, by };
  if (decision === 'reject') return { outcome: 'reject', by, ...(typeof reason === 'string' && reason.length > 0 ? { reason: reason.slice(0, 200) } : {}) };
  return undefined;
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
