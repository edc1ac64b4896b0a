import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { closeHttpServer, createBoundedHttpServer, MAX_CONNECTIONS } from './create-bounded-http-server.js';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { createBearerCheck } from './bearer-token-check.js';
import { honourCancellations } from './honour-cancellations.js';
import { refuseReusedRequestIds } from './refuse-reused-request-ids.js';
import { httpAllowLists } from './http-allow-lists.js';
import { requestTarget, MALFORMED_TARGET } from './request-target.js';
import { resolveServeHttpOptions } from './resolve-serve-http-options.js';

export interface ServeHttpOptions {
  /** Default 127.0.0.1. Anything else needs `allowedHosts` and a `token`. */
  readonly host?: string;
  /** Default 0: an ephemeral port (read it from the returned URL). */
  readonly port?: number;
  /** Default `/mcp`. */
  readonly path?: string;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Host header values accepted (hostname:port). Default: the loopback names at the bound port. Never empty. */
  readonly allowedHosts?: readonly string[];
  /** Origin header values accepted when a request carries one. Default: http origins of the loopback names at the bound port. Never empty. */
  readonly allowedOrigins?: readonly string[];
  /** Concurrent sessions. Default 64. */
  readonly maxSessions?: number;
  /**
   * A session with no request in flight for this long is closed, so clients
   * that vanish without a DELETE cannot fill `maxSessions`. Default 30 minutes.
   */
  readonly sessionIdleMs?: number;
}

export interface HttpListener {
  readonly url: string;
  /** Sessions open now. */
  sessions(): number;
  close(): Promise<void>;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly close: () => Promise<void>;
  /** When a request last arrived or finished. */
  lastSeen: number;
  /** Requests being answered now, SSE streams included. */
  inFlight: number;
}

/**
 * Streamable HTTP, one MCP server per session. DNS-rebinding defence is the
 * SDK transport's own Host and Origin validation, switched on for every
 * session with the loopback names at the bound port; a bearer token, when
 * configured, is checked first in constant time.
 */
export async function serveHttp(options: ServeHttpOptions, createSession: () => { server: Server; detach: () => void }): Promise<HttpListener> {
  const { host, path, maxSessions, idleMs } = resolveServeHttpOptions(options);
  const sessions = new Map<string, Session>();
  // The HTTP response each JSON-RPC request arrived on, to notice the client dropping it.
  const carrying = new AsyncLocalStorage<Carrier>();
  // An open SSE stream is a request in flight: only a session nobody is using can go idle.
  const closeIdle = (): void => {
    const now = Date.now();
    for (const session of sessions.values()) if (session.inFlight === 0 && now - session.lastSeen >= idleMs) void session.close();
  };

  /*
   * At the cap, the session left unused longest, with nothing in flight, makes
   * room for a new one. Waiting for `idleMs` alone let 64 clients that closed
   * without a DELETE (the SDK client's `close()` sends none) refuse every
   * other client for 30 minutes: a client with the token could lock the
   * gateway in two seconds. A session in use (a request or its SSE stream
   * open, as every SDK client keeps) is never closed for room; a client whose
   * session was closed gets 404 and, as the protocol says, initializes again.
   */
  const makeRoom = (): void => {
    closeIdle();
    if (sessions.size < maxSessions) return;
    let oldest: Session | undefined;
    for (const session of sessions.values()) if (session.inFlight === 0 && (oldest === undefined || session.lastSeen < oldest.lastSeen)) oldest = session;
    // Its closing takes it out of `sessions` at once.
    if (oldest !== undefined) void oldest.close();
  };

  const authorized = options.token === undefined ? undefined : createBearerCheck(options.token);
  let allowedHosts: string[] = [];
  let allowedOrigins: string[] = [];

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const target = requestTarget(request, 'http://localhost');
    if (target === undefined) return reply(response, 400, MALFORMED_TARGET);
    if (target.pathname !== path) return reply(response, 404, 'Not found');
    if (authorized !== undefined && !authorized(request.headers.authorization)) {
      response.setHeader('WWW-Authenticate', 'Bearer');
      return reply(response, 401, 'Unauthorized');
    }
    const sessionId = request.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) return reply(response, 404, 'Session not found');
      holdOpen(session, response);
      return carry(carrying, response, () => session.transport.handleRequest(request, response));
    }
    if (request.method !== 'POST') return reply(response, 400, 'Missing session');
    if (sessions.size >= maxSessions) makeRoom();
    if (sessions.size >= maxSessions) return reply(response, 503, 'Too many sessions');
    const { server, detach } = createSession();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableDnsRebindingProtection: true,
      allowedHosts,
      allowedOrigins,
      onsessioninitialized: (id) => {
        const session: Session = { transport, close: closeSession, lastSeen: Date.now(), inFlight: 0 };
        sessions.set(id, session);
        // Its initialize is still being answered: a session is never made room from before its client has its id.
        holdOpen(session, response);
      },
    });
    const closeSession = async (): Promise<void> => {
      detach();
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      await server.close();
    };
    transport.onclose = () => {
      detach();
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    honourCancellations(transport);
    cancelOnDroppedStream(transport, carrying);
    refuseReusedRequestIds(server, transport);
    await carry(carrying, response, () => transport.handleRequest(request, response));
    // A refused or non-initialize first request leaves no session behind.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await closeSession();
  };

  // Four connections a session (a request in flight, its event stream, a cancellation, a kept-alive spare), at least the default.
  const listener: HttpServer = createBoundedHttpServer(
    (request, response) => {
      handle(request, response).catch(() => {
        if (!response.headersSent) reply(response, 500, 'Internal error');
        else response.end();
      });
    },
    Math.max(MAX_CONNECTIONS, maxSessions * 4),
  );
  const port = await listenOn(listener, options.port ?? 0, host);
  const sweeper = setInterval(closeIdle, Math.min(idleMs, 60_000));
  sweeper.unref();
  ({ allowedHosts, allowedOrigins } = httpAllowLists(options, port));
  const shown = host === '::1' ? '[::1]' : host;
  return {
    url: `http://${shown}:${port}${path}`,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      await Promise.allSettled([...sessions.values()].map((session) => session.close()));
      await closeHttpServer(listener);
    },
  };
}

/** Count `response` as a request in flight on `session` until it closes, so the session cannot go idle under it. */
function holdOpen(session: Session, response: ServerResponse): void {
  session.inFlight += 1;
  session.lastSeen = Date.now();
  response.once('close', () => {
    session.inFlight -= 1;
    session.lastSeen = Date.now();
  });
}

/** Where the response a request arrived on can be found while it is open. */
interface Carrier {
  response: ServerResponse | undefined;
}

/**
 * Run `work` with its response findable through `carrying`, until the
 * response closes. Whatever is created during the request inherits the
 * carrier, and some of it outlives the request: a kept-alive connection's
 * idle timer is armed as the response finishes. Holding the response itself
 * there would keep it, the request and every listener on it for as long as
 * the client keeps the connection open; an emptied carrier holds nothing.
 */
function carry<T>(carrying: AsyncLocalStorage<Carrier>, response: ServerResponse, work: () => T): T {
  const carrier: Carrier = { response };
  response.once('close', () => {
    carrier.response = undefined;
  });
  return carrying.run(carrier, work);
}

/**
 * A request whose response stream the client dropped can never be answered:
 * without an event store there is no resuming it. It is cancelled as the
 * client's own `notifications/cancelled` would cancel it, so its handler's
 * signal aborts and a pending approval is withdrawn — not left for someone
 * to approve after the client has gone.
 */
function cancelOnDroppedStream(transport: StreamableHTTPServerTransport, carrying: AsyncLocalStorage<Carrier>): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const response = carrying.getStore()?.response;
    if (response !== undefined && isJSONRPCRequest(message)) {
      const requestId = message.id;
      response.once('close', () => {
        if (!response.writableFinished) deliver?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the client closed the stream of this request' } });
      });
    }
    deliver?.(message, extra);
  };
}

/** Listen on `port` (0: an ephemeral one) and answer the port bound. */
async function listenOn(listener: HttpServer, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(port, host, () => resolve());
  });
  return (listener.address() as AddressInfo).port;
}

function reply(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
