import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';

type MessageExtra = Parameters<NonNullable<Transport['onmessage']>>[1];

/** The protocol layer's own entries, which its message switch calls. */
interface ProtocolEntries {
  _onrequest?: (request: JSONRPCRequest, extra?: MessageExtra) => void;
  _onresponse?: (response: JSONRPCResultResponse) => void;
}

/**
 * Call once `protocol` (a client or a server) is connected to `transport`,
 * whose messages were read against the JSON-RPC schemas (the gateway's stdio
 * framing, `readJsonRpcLine`). Requests and result responses then go
 * straight to the protocol layer's own handling of them (ids, cancellation,
 * progress, timeouts, handlers — all the SDK's), past its message switch,
 * which tries each message against one schema after another — a request
 * first as a result and as an error response, each a failure that costs.
 * The schemas are strict: a message with a `method` and an `id` is a request,
 * one with a `result` and an `id` a result response. Notifications and error
 * responses take the switch as before, and so does every message where this
 * SDK version has no such entries. Returns whether messages are routed.
 */
export function routePastMessageSwitch(protocol: Client | Server, transport: Pick<Transport, 'onmessage'>): boolean {
  const { _onrequest: onRequest, _onresponse: onResponse } = protocol as unknown as ProtocolEntries;
  const onMessage = transport.onmessage;
  if (typeof onRequest !== 'function' || typeof onResponse !== 'function' || onMessage === undefined) return false;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtra) => {
    if ('id' in message && 'method' in message) onRequest.call(protocol, message, extra);
    else if ('id' in message && 'result' in message) onResponse.call(protocol, message);
    else onMessage(message, extra);
  };
  return true;
}
