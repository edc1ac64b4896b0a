import { PassThrough } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createToolRegistry, defineTool } from '../core/internal.js';
import { readCallToolParams, setCallToolHandler } from './read-call-tool-request.js';
import { serveMcp } from './serve-mcp.js';

describe('readCallToolParams', () => {
  it('reads the name and the arguments, absent arguments as none', () => {
    expect(readCallToolParams({ name: 'echo', arguments: { text: 'hi' }, _meta: { progressToken: 1 } })).toEqual({ name: 'echo', arguments: { text: 'hi' } });
    expect(readCallToolParams({ name: 'echo' })).toEqual({ name: 'echo', arguments: {} });
  });

  it.each([
    ['no params', undefined, 'params must be an object'],
    ['params that are an array', ['echo'], 'params must be an object'],
    ['a name that is not a string', { name: 42 }, 'params.name must be a string'],
    ['no name', { arguments: {} }, 'params.name must be a string'],
    ['arguments that are an array', { name: 'echo', arguments: ['x'] }, 'params.arguments must be an object'],
    ['arguments that are a string', { name: 'echo', arguments: '{"text":"x"}' }, 'params.arguments must be an object'],
    ['arguments that are null', { name: 'echo', arguments: null }, 'params.arguments must be an object'],
    ['arguments with an own __proto__ member', JSON.parse('{"name":"echo","arguments":{"text":"x","__proto__":{"overwrite":true}}}') as unknown, 'must not have a __proto__ member'],
  ])('refuses %s with InvalidParams', (_label, params, problem) => {
    let thrown: unknown;
    try {
      readCallToolParams(params);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpError);
    expect((thrown as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((thrown as McpError).message).toContain(problem);
  });
});

type Answer = { id: number; result?: { content: { text: string }[] }; error?: { code: number; message: string } };

/** An echo tool served over stdio streams: what it was called with, and the answers by id. */
async function serveEcho() {
  const calls: unknown[] = [];
  const registry = createToolRegistry({
    tools: [defineTool({ name: 'echo', description: 'Echo.', input: { type: 'object', properties: { text: { type: 'string' } } }, dispatch: (args) => (calls.push(args), 'ok') })],
  });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const gateway = await serveMcp(registry, { transport: 'stdio', stdin, stdout, context: { grantedTools: ['echo'] } });
  const answers = new Map<number, Answer>();
  let buffered = '';
  stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, newline)) as Answer;
      answers.set(message.id, message);
      buffered = buffered.slice(newline + 1);
    }
  });
  const sendLine = (line: string): boolean => stdin.write(`${line}\n`);
  const send = (message: object): boolean => sendLine(JSON.stringify({ jsonrpc: '2.0', ...message }));
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  send({ method: 'notifications/initialized' });
  return { calls, answers, send, sendLine, gateway };
}

describe('a served tools/call, read once', () => {
  it('is answered past the protocol layer\'s schema parse with this SDK version', () => {
    const server = new Server({ name: 'routed', version: '1.0.0' }, { capabilities: { tools: {} } });
    expect(setCallToolHandler(server, () => Promise.resolve({ content: [] }))).toBe(true);
  });

  it('answers a malformed request with InvalidParams and never dispatches it; a well-formed one runs', async () => {
    const { calls, answers, send, gateway } = await serveEcho();
    send({ id: 2, method: 'tools/call', params: { name: 'echo', arguments: ['not', 'an', 'object'] } });
    send({ id: 3, method: 'tools/call', params: { arguments: { text: 'x' } } });
    send({ id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });
    await expect.poll(() => answers.size, { timeout: 5000 }).toBe(4);
    expect(answers.get(2)?.error?.code).toBe(ErrorCode.InvalidParams);
    expect(answers.get(3)?.error?.code).toBe(ErrorCode.InvalidParams);
    expect(answers.get(4)?.result?.content[0]?.text).toBe('ok');
    expect(calls).toEqual([{ text: 'x' }]);
    await gateway.close();
  });

  it('never hands a body arguments carrying an own __proto__ member, which a copy would take as the prototype', async () => {
    const { calls, answers, sendLine, send, gateway } = await serveEcho();
    sendLine('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","__proto__":{"text":"evil","overwrite":true}}}}');
    send({ id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });
    await expect.poll(() => answers.size, { timeout: 5000 }).toBe(3);
    expect(answers.get(2)?.error?.code).toBe(ErrorCode.InvalidParams);
    expect(calls).toEqual([{ text: 'x' }]);
    expect(calls.every((args) => !Object.hasOwn(args as object, '__proto__'))).toBe(true);
    await gateway.close();
  });

  it('dispatches nothing of a line the JSON-RPC schemas refuse, and answers it not at all', async () => {
    const { calls, answers, send, sendLine, gateway } = await serveEcho();
    const call = { method: 'tools/call', params: { name: 'echo', arguments: { text: 'planted' } } };
    sendLine(JSON.stringify({ jsonrpc: '1.0', id: 2, ...call }));
    sendLine(JSON.stringify({ jsonrpc: '2.0', id: 3, ...call, result: {} }));
    sendLine(JSON.stringify({ jsonrpc: '2.0', id: 4.5, ...call }));
    sendLine(JSON.stringify({ jsonrpc: '2.0', id: 5, ...call, params: { ...call.params, _meta: { progressToken: null } } }));
    sendLine('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo"');
    send({ id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });
    await expect.poll(() => answers.has(7), { timeout: 5000 }).toBe(true);
    expect([...answers.keys()]).toEqual([1, 7]);
    expect(calls).toEqual([{ text: 'x' }]);
    await gateway.close();
  });
});
