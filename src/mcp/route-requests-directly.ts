import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

type OnMessage = NonNullable<Transport['onmessage']>;
type MessageExtra = Parameters<OnMessage>[1];

/** The protocol layer's own entry for requests, which its message switch calls. */
interface RequestEntry {
  _onrequest?: (request: JSONRPCRequest, extra?: MessageExtra) => void;
}

/**
 * Call once `server` is connected to `transport`: requests go straight to
 * the protocol layer's request handling (ids, cancellation, progress,
 * handlers — all the SDK's), past its message switch, which tries each
 * message first as a result and as an error response, each a schema whose
 * failure is costly. A message the transport delivered with a `method` and
 * an `id` is a request: the transport read it against the JSON-RPC schemas,
 * which are strict, and no other message of them has both. Everything else
 * takes the switch as before. Where this SDK version has no such entry the
 * switch keeps every message. Returns whether requests are routed directly.
 */
export function routeRequestsDirectly(server: Server, transport: Pick<Transport, 'onmessage'>): boolean {
  const onRequest = (server as unknown as RequestEntry)._onrequest;
  const onMessage = transport.onmessage;
  if (typeof onRequest !== 'function' || onMessage === undefined) return false;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtra) => {
    if ('method' in message && 'id' in message) onRequest.call(server, message, extra);
    else onMessage(message, extra);
  };
  return true;
}
