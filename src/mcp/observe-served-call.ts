import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the gateway knows of one `tools/call` that the pipeline's events do
 * not carry: the session and transport it came on. Names and ids only,
 * never the arguments, so an observer cannot leak what a call was given.
 */
export interface ServedCall {
  /** The id the call is dispatched (and journaled) under; the pipeline's events carry it too. */
  readonly callId: string;
  /** The tool name as the client sent it. */
  readonly tool: string;
  /** The JSON-RPC request id. */
  readonly requestId: string | number;
  /** The Streamable HTTP session; undefined over stdio. */
  readonly sessionId: string | undefined;
  readonly transport: 'stdio' | 'http';
}

/**
 * Wraps the answer to one `tools/call` (tracing: the call's server span).
 * It must call `run` once and return its result; what it throws is what the
 * client gets, so an observer should rethrow what `run` throws and nothing else.
 */
export type ObserveServedCall = (call: ServedCall, run: () => Promise<CallToolResult>) => Promise<CallToolResult>;
