import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a connection may take to send a whole request head; also how long it may stay open before its first request. */
export const REQUEST_HEAD_TIMEOUT_MS = 10_000;
/** How long a connection may take to send a whole request, its body included (a response may stream for as long as it likes). */
const REQUEST_TIMEOUT_MS = 30_000;
/** Connections open at once, at most, unless the server says otherwise: a client needs a few (its requests and an event stream). */
export const MAX_CONNECTIONS = 256;
/** How often Node checks the two timeouts above. */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * An HTTP server for the gateway's loopback endpoints (the MCP endpoint and
 * the console) that no local process can hold open for nothing. Node by
 * itself gives a request head 60 s, checked every 30 s, lets a connection
 * that never sends a byte stay open for good, and takes as many
 * connections as the process has descriptors: a process trickling headers,
 * or just connecting, could use them all up, and the tool host, which opens
 * files and pipes with the same descriptors, would fail. Here a request head
 * must arrive within 10 s of the connection, a request within 30 s, and at
 * most `maxConnections` are open (one more is closed as it arrives). A
 * response still streams for as long as it likes: an event stream that waits
 * on a person's approval is not cut.
 */
export function createBoundedHttpServer(handler: (request: IncomingMessage, response: ServerResponse) => void, maxConnections = MAX_CONNECTIONS): Server {
  const server = createServer({ headersTimeout: REQUEST_HEAD_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_MS }, handler);
  server.maxConnections = maxConnections;
  // Node starts the head's clock at its first byte: a connection that sends nothing is closed here.
  const waiting = new WeakMap<Socket, ReturnType<typeof setTimeout>>();
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), REQUEST_HEAD_TIMEOUT_MS);
    timer.unref();
    waiting.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  server.on('request', (request: IncomingMessage) => {
    clearTimeout(waiting.get(request.socket));
  });
  return server;
}

/**
 * Stop `server` listening and close every connection it holds, busy or idle;
 * resolves once they are gone. `server.close()` alone closes only the
 * connections idle at that moment: one busy with a request stays open after
 * it, kept alive, and carries the client's next request, an event stream
 * that never ends among them, so the server would never finish closing.
 */
export function closeHttpServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}
