import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type JSONRPCMessage, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { abortReasonText } from './abort-reason-text.js';
import { isRecord } from './is-record.js';
import { isUpstreamResult, NotAnMcpResultError } from './upstream-result-schema.js';

/** What one `tools/call` upstream takes, as the SDK's `request` takes it. */
export interface ToolsCallOptions {
  readonly signal?: AbortSignal;
  /** Restarted by every progress notification. */
  readonly timeout: number;
  /** The cap on the whole call however much progress arrives (checked as progress arrives, as the SDK checks it). */
  readonly maxTotalTimeout?: number;
  readonly onprogress: (progress: Progress) => void;
}

export type LeanToolsCall = (tool: string, args: Record<string, unknown>, options: ToolsCallOptions) => Promise<Record<string, unknown>>;

interface PendingCall {
  readonly resolve: (result: Record<string, unknown>) => void;
  readonly reject: (error: unknown) => void;
  readonly options: ToolsCallOptions;
  readonly startedAt: number;
  timer: ReturnType<typeof setTimeout>;
  readonly onAbort: (() => void) | undefined;
}

/** Ids of this module's requests; the SDK numbers its own, so the two never meet. */
const ID_PREFIX = 'toolgate-';

const leanCalls = new WeakMap<Client, LeanToolsCall>();

/** The lean `tools/call` of a client it was attached to; undefined for any other (which keeps the SDK's request). */
export function leanToolsCallOf(client: Client): LeanToolsCall | undefined {
  return leanCalls.get(client);
}

/**
 * Send `tools/call` to an upstream past the SDK's request machinery, once
 * `client` is connected to `transport`. The SDK's `request` sets up, for
 * every call, an AbortController, a listener on the caller's signal that it
 * never removes, a response handler, a progress handler and a timeout entry
 * in four maps, and a result parse through a schema layer; on the gateway's
 * hot path that is a tenth of a no-op call's time.
 *
 * Here a call is one entry in one map, under an id the SDK never uses
 * (`toolgate-N`, a string). Everything else the SDK does for a request is
 * kept: that id is the progress token; each progress notification restarts
 * the timeout, and past `maxTotalTimeout` ends the call; a timeout or an
 * abort sends `notifications/cancelled` upstream; the result is taken by
 * the SDK's result rule (`UPSTREAM_RESULT_SCHEMA`); an error response
 * rejects with its code; a closed connection rejects every call in flight.
 * Every message that is not an answer to one of these calls — the SDK's own
 * requests and their progress, notifications, a response to an id never
 * sent — goes on to the SDK as before.
 */
export function attachLeanToolsCall(client: Client, transport: Transport): boolean {
  const onMessage = transport.onmessage;
  const onClose = transport.onclose;
  if (onMessage === undefined) return false;
  const pending = new Map<string, PendingCall>();
  let next = 0;

  const finish = (id: string): PendingCall | undefined => {
    const call = pending.get(id);
    if (call === undefined) return undefined;
    pending.delete(id);
    clearTimeout(call.timer);
    if (call.onAbort !== undefined) call.options.signal?.removeEventListener('abort', call.onAbort);
    return call;
  };
  const cancel = (id: string, error: unknown): void => {
    const call = finish(id);
    if (call === undefined) return;
    // Settled before anything that may throw: the call is already out of the map, so nothing else would settle it.
    call.reject(error);
    transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: abortReasonText(error) } }).catch(() => undefined);
  };
  const timedOut = (id: string, message: string): McpError => new McpError(ErrorCode.RequestTimeout, message, { requestId: id });

  const answer = (id: string, message: JSONRPCMessage): void => {
    const call = finish(id);
    if (call === undefined) return;
    if ('error' in message) {
      call.reject(new McpError(message.error.code, message.error.message, message.error.data));
      return;
    }
    const result = 'result' in message ? message.result : undefined;
    if (isUpstreamResult(result)) call.resolve(result);
    else call.reject(new NotAnMcpResultError());
  };
  const progress = (id: string, params: Record<string, unknown>): void => {
    const call = pending.get(id);
    const update = progressOf(params);
    // A malformed notification is dropped, as the SDK's schema drops it: it neither reports nor keeps a call alive.
    if (call === undefined || update === undefined) return;
    const { maxTotalTimeout, timeout, onprogress } = call.options;
    if (maxTotalTimeout !== undefined && Date.now() - call.startedAt >= maxTotalTimeout) {
      cancel(id, timedOut(id, 'Maximum total timeout exceeded'));
      return;
    }
    clearTimeout(call.timer);
    call.timer = setTimeout(() => cancel(id, timedOut(id, 'Request timed out')), timeout);
    onprogress(update);
  };

  transport.onmessage = (message, extra) => {
    if ('id' in message && typeof message.id === 'string' && message.id.startsWith(ID_PREFIX) && pending.has(message.id) && !('method' in message)) {
      answer(message.id, message);
      return;
    }
    // A request under that name (it has an id) is no progress: the SDK refuses it, as it refuses any request it has no handler for.
    if ('method' in message && message.method === 'notifications/progress' && !('id' in message) && isRecord(message.params)) {
      const token = message.params.progressToken;
      if (typeof token === 'string' && pending.has(token)) {
        progress(token, message.params);
        return;
      }
    }
    onMessage(message, extra);
  };
  transport.onclose = () => {
    const error = new McpError(ErrorCode.ConnectionClosed, 'Connection closed');
    for (const id of [...pending.keys()]) finish(id)?.reject(error);
    onClose?.();
  };

  leanCalls.set(client, (tool, args, options) => {
    if (options.signal?.aborted === true) return Promise.reject(options.signal.reason as Error);
    const id = `${ID_PREFIX}${(next += 1)}`;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const signal = options.signal;
      const onAbort = signal === undefined ? undefined : () => cancel(id, signal.reason);
      const timer = setTimeout(() => cancel(id, timedOut(id, 'Request timed out')), options.timeout);
      pending.set(id, { resolve, reject, options, startedAt: Date.now(), timer, onAbort });
      if (onAbort !== undefined) signal?.addEventListener('abort', onAbort, { once: true });
      transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args, _meta: { progressToken: id } } }).catch((error: unknown) => {
        finish(id)?.reject(error);
      });
    });
  });
  return true;
}

/** A progress notification's update as the SDK's schema takes it: a number, then an optional total and message. */
function progressOf(params: Record<string, unknown>): Progress | undefined {
  const { progressToken: _token, ...update } = params;
  if (typeof update.progress !== 'number') return undefined;
  if (update.total !== undefined && typeof update.total !== 'number') return undefined;
  if (update.message !== undefined && typeof update.message !== 'string') return undefined;
  return update as Progress;
}
