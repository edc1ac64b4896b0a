import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

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
  const streams = httpStreams(transport);
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    // Read against the JSON-RPC schemas already: a message with a method and an id is a request (no schema parse here,
    // on every message's path).
    if ('method' in message && 'id' in message) {
      if (inFlight.has(message.id)) {
        const refusal: JSONRPCMessage = { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidRequest, message: REUSED_REQUEST_ID_MESSAGE } };
        (streams === undefined ? transport.send(refusal) : streams.refuse(message.id, refusal)).catch(() => undefined);
        return;
      }
      streams?.noteFirst(message.id);
    }
    onMessage(message, extra);
  };
  return true;
}

/**
 * Over HTTP, the SDK's transport keeps one response stream per request id,
 * mapped when a POST arrives: a duplicate's stream takes the first's place,
 * and the refusal sent under the id then closes it and drops the id. The
 * first call's answer had no stream left to go to, and its POST stayed open
 * for good (a connection held; about 250 such pairs fill the gateway's 256).
 * So the refusal is written by the transport's own `send`, past the wrappers
 * on this instance (`honourCancellations` would take it for the first call's
 * answer, and a later cancel of the first would close nothing), and the
 * first call's stream is given back its id. Undefined for a transport with
 * no such map (stdio).
 */
function httpStreams(transport: Pick<Transport, 'send'>): { noteFirst(id: RequestId): void; refuse(id: RequestId, refusal: JSONRPCMessage): Promise<void> } | undefined {
  const web = (transport as { _webStandardTransport?: { _requestToStreamMapping?: unknown } })._webStandardTransport;
  const mapping = web?._requestToStreamMapping;
  const send = (Object.getPrototypeOf(transport) as Partial<Pick<Transport, 'send'>> | null)?.send;
  if (!(mapping instanceof Map) || send === undefined) return undefined;
  /** The stream of each request in flight, as its POST mapped it. */
  const first = new Map<RequestId, unknown>();
  return {
    noteFirst(id) {
      // The ids of calls that ended go: only the ids in flight can be reused.
      for (const known of first.keys()) if (!mapping.has(known)) first.delete(known);
      if (mapping.has(id)) first.set(id, mapping.get(id));
    },
    refuse(id, refusal) {
      // Without an event store the write, and the closing of the duplicate's stream, happen before `send` first waits.
      const sent = send.call(transport, refusal);
      if (first.has(id)) mapping.set(id, first.get(id));
      return sent;
    },
  };
}
