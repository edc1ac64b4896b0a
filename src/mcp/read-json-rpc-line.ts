import { JSONRPCMessageSchema, RELATED_TASK_META_KEY, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from './is-record.js';

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);

/**
 * One line of a stdio MCP stream as a JSON-RPC message. The SDK checks every
 * message against its union of four schemas, which on a `tools/call` costs
 * more than the gateway's own work; the two messages of every call — a
 * request and a result response — are accepted here in plain code by the
 * same rules: the exact keys, `jsonrpc: "2.0"`, a string or integer id, an
 * object for `params` or `result` and a well-formed `_meta` in it. Anything
 * these rules do not plainly accept goes to the SDK's own schema, which
 * accepts or refuses it as it always did: nothing passes here that the SDK
 * would refuse. A line that is not JSON throws, as it does in the SDK.
 */
export function readJsonRpcLine(line: string): JSONRPCMessage {
  const message: unknown = JSON.parse(line);
  if (isPlainRequest(message) || isPlainResultResponse(message)) return message;
  return JSONRPCMessageSchema.parse(message);
}

function isPlainRequest(message: unknown): message is JSONRPCMessage {
  if (!isRecord(message) || !hasOnlyKeys(message, REQUEST_KEYS)) return false;
  if (message.jsonrpc !== '2.0' || !isRequestId(message.id) || typeof message.method !== 'string') return false;
  const params = message.params;
  return params === undefined || (isRecord(params) && isPlainMeta(params._meta));
}

function isPlainResultResponse(message: unknown): message is JSONRPCMessage {
  if (!isRecord(message) || !hasOnlyKeys(message, RESULT_KEYS)) return false;
  if (message.jsonrpc !== '2.0' || !isRequestId(message.id)) return false;
  return isRecord(message.result) && isPlainMeta(message.result._meta);
}

/** Absent, or an object whose progress token (if any) is a string or an integer; a related-task entry is left to the SDK's schema. */
function isPlainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isRecord(meta) || RELATED_TASK_META_KEY in meta) return false;
  return meta.progressToken === undefined || isRequestId(meta.progressToken);
}

function isRequestId(value: unknown): boolean {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

function hasOnlyKeys(record: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(record)) if (!allowed.has(key)) return false;
  return true;
}
