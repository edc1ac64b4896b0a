import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** Cancellations kept for requests not seen yet, and answered requests remembered, per session: the oldest go first. */
const MAX_REMEMBERED = 1024;
/** How long a cancellation waits for its request. */
const EARLY_CANCEL_MS = 30_000;

/**
 * The cancellations of one HTTP session, as the protocol means them. A
 * cancelled request is never answered (the protocol's rule, and the SDK's),
 * so its response stream is ended once the cancellation reaches it: left
 * open, each cancelled call held its connection until the session closed,
 * and about 250 cancels filled the gateway's connections. A client that
 * dropped the stream itself is cancelled the same way
 * (`cancelOnDroppedStream`); ending it again does nothing.
 *
 * Each message is its own POST, on a connection of its own, so a
 * cancellation can arrive before the request it cancels. The SDK finds no
 * such request and drops it, and the request then ran: a write the person
 * had cancelled was made, and a call that waits until it is cancelled held
 * its place for good. Such a cancellation is kept (for 30 s, the last 1,024),
 * and the request, when it comes, is not run: its stream is ended as any
 * cancelled request's. A cancellation of a request already answered (the
 * last 1,024) is not kept, so the next request of that id runs.
 */
export function honourCancellations(transport: StreamableHTTPServerTransport): void {
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  const running = new Set<RequestId>();
  // By request id, when it was answered or cancelled; the oldest first.
  const answered = new Map<RequestId, number>();
  const early = new Map<RequestId, number>();
  transport.send = (message, options) => {
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) {
      const id = message.id;
      running.delete(id);
      remember(answered, id);
    }
    return send(message, options);
  };
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if (isJSONRPCRequest(message)) {
      const cancelledAt = early.get(message.id);
      early.delete(message.id);
      if (cancelledAt !== undefined && Date.now() - cancelledAt <= EARLY_CANCEL_MS) {
        transport.closeSSEStream(message.id);
        return;
      }
      running.add(message.id);
      answered.delete(message.id);
    }
    deliver?.(message, extra);
    const requestId = cancelledRequestId(message);
    if (requestId === undefined) return;
    if (running.delete(requestId)) transport.closeSSEStream(requestId);
    else if (!answered.has(requestId)) remember(early, requestId);
  };
}

/** Note `id` as the newest of `ids`, the oldest going past `MAX_REMEMBERED`. */
function remember(ids: Map<RequestId, number>, id: RequestId): void {
  ids.delete(id);
  ids.set(id, Date.now());
  if (ids.size > MAX_REMEMBERED) ids.delete(ids.keys().next().value as RequestId);
}

/** The request a `notifications/cancelled` names, or undefined for any other message. */
function cancelledRequestId(message: JSONRPCMessage): RequestId | undefined {
  if (!('method' in message) || message.method !== 'notifications/cancelled' || 'id' in message) return undefined;
  const requestId: unknown = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof requestId === 'string' || typeof requestId === 'number' ? requestId : undefined;
}
