import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { describe, expect, it } from 'vitest';
import { readJsonRpcLine } from './read-json-rpc-line.js';

/** What the SDK's own reading makes of a line: the message, or the fact that it refuses it. */
function sdkReading(line: string): unknown {
  try {
    return { message: deserializeMessage(line) };
  } catch {
    return 'refused';
  }
}

function leanReading(line: string): unknown {
  try {
    return { message: readJsonRpcLine(line) };
  } catch {
    return 'refused';
  }
}

const accepted: readonly (readonly [string, unknown])[] = [
  ['a tools/call request', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }],
  ['a request with a string id and a progress token', { jsonrpc: '2.0', id: 'a-1', method: 'tools/call', params: { name: 'echo', _meta: { progressToken: 'p', other: 1 } } }],
  ['a request without params', { jsonrpc: '2.0', id: 0, method: 'ping' }],
  ['a result response', { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'hi' }], isError: false } }],
  ['a result response with _meta', { jsonrpc: '2.0', id: 7, result: { content: [], _meta: { progressToken: 3, any: 'thing' } } }],
  ['a notification', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1 } }],
  ['an error response', { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'bad' } }],
  ['a related-task entry', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x', _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } }],
];

const refused: readonly (readonly [string, string])[] = [
  ['a line that is not JSON', '{"jsonrpc":"2.0","id":7,"result":'],
  ['a JSON value that is no message', '"tools/call"'],
  ['another JSON-RPC version', JSON.stringify({ jsonrpc: '1.0', id: 7, result: {} })],
  ['no version', JSON.stringify({ id: 7, result: {} })],
  ['a fractional id', JSON.stringify({ jsonrpc: '2.0', id: 7.5, result: {} })],
  ['an id past the safe integers', '{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}'],
  ['a null id on a result', JSON.stringify({ jsonrpc: '2.0', id: null, result: {} })],
  ['a boolean id on a request', JSON.stringify({ jsonrpc: '2.0', id: true, method: 'tools/call' })],
  ['a result that is an array', JSON.stringify({ jsonrpc: '2.0', id: 7, result: [] })],
  ['a result that is a string', JSON.stringify({ jsonrpc: '2.0', id: 7, result: 'done' })],
  ['a result that is null', JSON.stringify({ jsonrpc: '2.0', id: 7, result: null })],
  ['a result claiming to be an error too', JSON.stringify({ jsonrpc: '2.0', id: 7, result: {}, error: { code: 1, message: 'x' } })],
  ['a result claiming to be a request too', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', result: {} })],
  ['a result with an extra member', JSON.stringify({ jsonrpc: '2.0', id: 7, result: {}, note: 'x' })],
  ['a request with an extra member', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {}, result: {} })],
  ['a __proto__ member', '{"jsonrpc":"2.0","id":7,"result":{},"__proto__":{"polluted":true}}'],
  ['params that are an array', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: ['echo'] })],
  ['params that are null', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: null })],
  ['a method that is not a string', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 42 })],
  ['a null _meta', JSON.stringify({ jsonrpc: '2.0', id: 7, result: { _meta: null } })],
  ['a fractional progress token', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { _meta: { progressToken: 1.5 } } })],
  ['a related-task entry without a task id', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { _meta: { 'io.modelcontextprotocol/related-task': {} } } })],
];

describe('readJsonRpcLine', () => {
  it.each(accepted)('reads %s as the SDK does', (_label, message) => {
    const line = JSON.stringify(message);
    expect(leanReading(line)).toEqual(sdkReading(line));
    expect(readJsonRpcLine(line)).toEqual(message);
  });

  it('reads a line ending in a carriage return', () => {
    expect(readJsonRpcLine('{"jsonrpc":"2.0","id":1,"result":{}}\r')).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it.each(refused)('refuses %s, as the SDK does', (_label, line) => {
    expect(sdkReading(line)).toBe('refused');
    expect(() => readJsonRpcLine(line)).toThrow();
  });

  it('leaves no prototype touched by a __proto__ member', () => {
    expect(() => readJsonRpcLine('{"jsonrpc":"2.0","id":7,"result":{"__proto__":{"polluted":true}}}')).not.toThrow();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
