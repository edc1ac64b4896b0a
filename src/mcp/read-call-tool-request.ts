import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallExtra } from './elicit-approval.js';
import { isRecord } from './is-record.js';

/** What the gateway reads of a `tools/call` request: the name and the arguments. */
export interface CallToolParams {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** The method alone: the SDK still routes the request by it, and the parameters are read below, once. */
const TOOLS_CALL_METHOD = CallToolRequestSchema.pick({ method: true }).loose();
const TOOLS_CALL = TOOLS_CALL_METHOD.shape.method.value;

/**
 * The parameters of a `tools/call`, or an `InvalidParams` error naming what
 * is wrong with them (never quoting a value). Only what the gateway uses is
 * read: the tool name and the arguments object.
 */
export function readCallToolParams(params: unknown): CallToolParams {
  if (!isRecord(params)) throw invalid('params must be an object');
  const { name, arguments: args } = params;
  if (typeof name !== 'string') throw invalid('params.name must be a string');
  if (args !== undefined && !isRecord(args)) throw invalid('params.arguments must be an object');
  // JSON.parse makes `__proto__` an own member. Policy reads the arguments by property and never sees it, but a
  // body or an upstream that copies them with Object.assign takes it as the prototype: values policy did not judge.
  if (args !== undefined && Object.hasOwn(args, '__proto__')) throw invalid('params.arguments must not have a __proto__ member');
  return { name, arguments: args ?? {} };
}

/**
 * Answer `tools/call` on `server` with `handler`, reading the request once.
 * The SDK's `Server` validates a `tools/call` request twice against its full
 * schema and the handler's result once more; the gateway builds every result
 * itself from a fixed shape, so it registers through the protocol layer,
 * which still owns request ids, cancellation and progress. The protocol
 * layer wraps a handler in a parse of the request against the given schema,
 * a copy of it that proves only the method its map already routed by; where
 * that map is what this SDK version holds, its entry calls `handler` on the
 * request as read. Returns whether that entry is in place.
 */
export function setCallToolHandler(server: Server, handler: (params: CallToolParams, extra: CallExtra) => Promise<CallToolResult>): boolean {
  const answer = (request: Readonly<Record<string, unknown>>, extra: CallExtra): Promise<CallToolResult> => handler(readCallToolParams(request.params), extra);
  Protocol.prototype.setRequestHandler.call(server, TOOLS_CALL_METHOD, answer);
  const handlers = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map) || !handlers.has(TOOLS_CALL)) return false;
  handlers.set(TOOLS_CALL, answer);
  return true;
}


function invalid(problem: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid tools/call request: ${problem}`);
}
