import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';

/**
 * What every error response an upstream sends is read with in place of its
 * own `data`, which the gateway never shows. The SDK turns an error response
 * into an `McpError` of the upstream's code, the same class and codes it
 * uses for its own conditions: an upstream answering `-32001` would pass for
 * the gateway's timeout, and `-32000` for a closed connection. This object,
 * which no upstream can send, is what tells its answers apart.
 */
const UPSTREAM_ERROR_DATA = Object.freeze({ source: 'upstream error response' });

/** Whether `error` is an upstream's error response (read through `markUpstreamErrorResponses`), not the gateway's own condition. */
export function isUpstreamErrorResponse(error: unknown): boolean {
  return error instanceof McpError && error.data === UPSTREAM_ERROR_DATA;
}

/**
 * Mark every error response `transport` delivers from now on. Call once the
 * client is connected and everything else that reads its messages is in
 * place, so that this is the first to see each one.
 */
export function markUpstreamErrorResponses(transport: Transport): void {
  const onMessage = transport.onmessage;
  if (onMessage === undefined) return;
  transport.onmessage = (message, extra) => {
    if (!('error' in message)) {
      onMessage(message, extra);
      return;
    }
    onMessage({ ...message, error: { code: message.error.code, message: message.error.message, data: UPSTREAM_ERROR_DATA } }, extra);
  };
}
