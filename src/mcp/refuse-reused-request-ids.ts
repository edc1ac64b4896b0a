import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What a request under the id of one still in flight is answered with; it is never dispatched. */
export const REUSED_REQUEST_ID_MESSAGE = 'Invalid request: its id is the id of a request already in flight in this session';

/**
 * Answer a request whose id is the id of a request of this session still
 * being handled with an `InvalidRequest` error, and never hand it to the SDK.
 * The SDK's protocol layer keeps one abort controller per request id, the
 * one its handler's signal comes from, and a second request under the same
 * id replaced the first's: the client's cancellation and the session's
 * close (the end of stdin, an HTTP `DELETE`, the idle sweep) then aborted
 * the second call alone. The first went on, and its pending approval stayed
 * in the console for a client that was gone: approved there later, its
 * effect ran. JSON-RPC ids are unique among a client's requests in flight;
 * a client that reuses one gets the refusal, not a call nobody can end.
 *
 * Call once `server` is connected to `transport`, after every other wrapper
 * of its messages, so a refused request reaches none of them. Looks at the
 * SDK's own map of requests in flight, which holds each id until its
 * handler settles; returns false, changing nothing, where this SDK version
 * has no such map.
 */
export function refuseReusedRequestIds(server: Server, transport: Pick<Transport, 'onmessage' | 'send'>): boolean {
  const inFlight = (server as unknown as { _requestHandlerAbortControllers?: unknown })._requestHandlerAbortControllers;
  const onMessage = transport.onmessage;
  if (!(inFlight instanceof Map) || onMessage === undefined) return false;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    // Read against the JSON-RPC schemas already: a message with a method and an id is a request (no schema parse here,
    // on every message's path).
    if ('method' in message && 'id' in message && inFlight.has(message.id)) {
      transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidRequest, message: REUSED_REQUEST_ID_MESSAGE } }).catch(() => undefined);
      return;
    }
    onMessage(message, extra);
  };
  return true;
}
