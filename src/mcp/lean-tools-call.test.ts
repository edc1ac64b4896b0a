import { getEventListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type JSONRPCMessage, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { attachLeanToolsCall, leanToolsCallOf, type LeanToolsCall } from './lean-tools-call.js';
import type { CallExtra } from './elicit-approval.js';
import { setCallToolHandler, type CallToolParams } from './read-call-tool-request.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((party) => party.close()));
});

interface Upstream {
  readonly client: Client;
  readonly call: LeanToolsCall;
  /** Every message the upstream received, as sent. */
  readonly received: JSONRPCMessage[];
  /** Deliver `message` to the gateway's side as if the upstream had written it. */
  inject(message: JSONRPCMessage): void;
  readonly clientSide: InMemoryTransport;
}

/** A real SDK server answering through `handler`, and a client with the lean call attached. */
async function connect(handler: (params: CallToolParams, extra: CallExtra) => Promise<CallToolResult>): Promise<Upstream> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
  setCallToolHandler(server, handler);
  await server.connect(serverSide);
  const received: JSONRPCMessage[] = [];
  const onServerMessage = serverSide.onmessage;
  serverSide.onmessage = (message, extra) => {
    received.push(structuredClone(message));
    onServerMessage?.(message, extra);
  };
  const client = new Client({ name: 'gateway', version: '1.0.0' });
  await client.connect(clientSide);
  expect(attachLeanToolsCall(client, clientSide)).toBe(true);
  open.push(client, server);
  const call = leanToolsCallOf(client);
  if (call === undefined) throw new Error('not attached');
  return { client, call, received, clientSide, inject: (message) => clientSide.onmessage?.(message) };
}

const OK: CallToolResult = { content: [{ type: 'text', text: 'ok' }] };
const options = (extra: Partial<Parameters<LeanToolsCall>[2]> = {}): Parameters<LeanToolsCall>[2] => ({ timeout: 5_000, onprogress: () => undefined, ...extra });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const cancellations = (received: readonly JSONRPCMessage[]): unknown[] =>
  received.filter((message) => 'method' in message && message.method === 'notifications/cancelled').map((message) => ('params' in message ? message.params : undefined));

describe('attachLeanToolsCall', () => {
  it('sends one request under its own string id, that id as its progress token, and hands the result on as sent', async () => {
    const upstream = await connect(() => Promise.resolve({ ...OK, _meta: { 'example.com/trace': 'x' } }));
    await expect(upstream.call('echo', { text: 'a' }, options())).resolves.toEqual({ ...OK, _meta: { 'example.com/trace': 'x' } });
    await upstream.call('echo', { text: 'b', n: 2 }, options());
    const calls = upstream.received.filter((message) => 'method' in message && message.method === 'tools/call');
    expect(calls).toEqual([
      { jsonrpc: '2.0', id: 'toolgate-1', method: 'tools/call', params: { name: 'echo', arguments: { text: 'a' }, _meta: { progressToken: 'toolgate-1' } } },
      { jsonrpc: '2.0', id: 'toolgate-2', method: 'tools/call', params: { name: 'echo', arguments: { text: 'b', n: 2 }, _meta: { progressToken: 'toolgate-2' } } },
    ]);
  });

  it('leaves every other message to the SDK: its own requests, their answers and notifications', async () => {
    const upstream = await connect(() => Promise.resolve(OK));
    // The SDK's request numbers its ids and parses the result with its schema: its calls go on beside the lean ones.
    const [sdk, lean] = await Promise.all([upstream.client.request({ method: 'tools/call', params: { name: 'echo', arguments: {} } }, CallToolResultSchema), upstream.call('echo', {}, options())]);
    expect(sdk).toEqual(OK);
    expect(lean).toEqual(OK);
    expect(upstream.received.filter((message) => 'method' in message && message.method === 'tools/call').map((message) => ('id' in message ? typeof message.id : ''))).toEqual(['number', 'string']);
    await expect(upstream.client.ping()).resolves.toEqual({});
  });

  it('refuses a result that is not an MCP result, and rejects an error response with its code', async () => {
    const broken = await connect(() => Promise.resolve({ content: [], _meta: 'not an object' } as unknown as CallToolResult));
    await expect(broken.call('echo', {}, options())).rejects.toMatchObject({ name: 'NotAnMcpResultError' });
    const failing = await connect(() => Promise.reject(new McpError(ErrorCode.InvalidParams, 'no such thing')));
    await expect(failing.call('echo', {}, options())).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it('times a silent call out and tells the upstream it was cancelled', async () => {
    let sawAbort = false;
    const upstream = await connect(
      (_params, extra) =>
        new Promise((resolve) => {
          extra.signal.addEventListener('abort', () => {
            sawAbort = true;
            resolve(OK);
          });
        }),
    );
    await expect(upstream.call('slow', {}, options({ timeout: 50 }))).rejects.toMatchObject({ code: ErrorCode.RequestTimeout, message: expect.stringMatching(/timed out/) });
    expect(cancellations(upstream.received)).toEqual([{ requestId: 'toolgate-1', reason: expect.stringMatching(/timed out/) }]);
    await expect.poll(() => sawAbort).toBe(true);
  });

  it('restarts the timeout on each progress notification, forwards each update, and caps the whole call at maxTotalTimeout', async () => {
    const steps = async (count: number, extra: CallExtra, token: unknown): Promise<CallToolResult> => {
      for (let step = 1; step <= count; step += 1) {
        await sleep(40);
        if (extra.signal.aborted) return OK;
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token as string, progress: step, total: count, message: `step ${step}` } });
      }
      return { content: [{ type: 'text', text: `done after ${count}` }] };
    };
    const upstream = await connect((_params, extra) => steps(6, extra, extra._meta?.progressToken));
    const seen: Progress[] = [];
    // 6 steps of 40 ms: past the 100 ms timeout, kept alive by progress alone.
    await expect(upstream.call('slow', {}, options({ timeout: 100, onprogress: (update) => seen.push(update) }))).resolves.toEqual({ content: [{ type: 'text', text: 'done after 6' }] });
    expect(seen.slice(0, 5)).toEqual([1, 2, 3, 4, 5].map((step) => ({ progress: step, total: 6, message: `step ${step}` })));
    await expect(upstream.call('slow', {}, options({ timeout: 100, maxTotalTimeout: 130 }))).rejects.toMatchObject({ code: ErrorCode.RequestTimeout, message: expect.stringMatching(/total/) });
    expect(cancellations(upstream.received)).toEqual([{ requestId: 'toolgate-2', reason: expect.stringMatching(/total/) }]);
  });

  it('drops a malformed progress notification: it neither reaches the caller nor keeps the call alive', async () => {
    let token: unknown;
    const upstream = await connect((_params, extra) => {
      token = extra._meta?.progressToken;
      return new Promise(() => undefined);
    });
    const seen: unknown[] = [];
    const started = Date.now();
    const outcome = upstream.call('slow', {}, options({ timeout: 300, onprogress: (update) => seen.push(update) })).then(
      () => undefined,
      (error: unknown) => ({ error, after: Date.now() - started }),
    );
    await expect.poll(() => token).toBe('toolgate-1');
    // Two arrive before the timeout; had either restarted it, the call would end 300 ms after it, not at 300 ms.
    for (const params of [{ progress: '1' }, { progress: 1, total: 'all' }, { progress: 1, message: { text: 'x' } }]) {
      await sleep(120);
      upstream.inject({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'toolgate-1', ...params } });
    }
    const ended = await outcome;
    expect(ended?.error).toMatchObject({ code: ErrorCode.RequestTimeout });
    expect(ended?.after).toBeLessThan(480);
    expect(seen).toEqual([]);
  });

  it('sends notifications/cancelled when the caller aborts, and rejects with the caller’s reason; an aborted signal sends nothing', async () => {
    const upstream = await connect(() => new Promise(() => undefined));
    const controller = new AbortController();
    const pending = upstream.call('slow', {}, options({ signal: controller.signal }));
    await sleep(20);
    const reason = new Error('the person stopped it');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect.poll(() => cancellations(upstream.received)).toEqual([{ requestId: 'toolgate-1', reason: 'the person stopped it' }]);
    await expect(upstream.call('slow', {}, options({ signal: AbortSignal.abort(reason) }))).rejects.toBe(reason);
    expect(upstream.received.filter((message) => 'method' in message && message.method === 'tools/call')).toHaveLength(1);
  });

  it('rejects with a caller’s abort reason that turns into no text, and still tells the upstream', async () => {
    const upstream = await connect(() => new Promise(() => undefined));
    const controller = new AbortController();
    const pending = upstream.call('slow', {}, options({ signal: controller.signal }));
    await sleep(20);
    // String() of it throws: had that come before the rejection, the call would wait forever and the throw would end the process.
    const reason = Object.create(null) as object;
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect.poll(() => cancellations(upstream.received)).toEqual([{ requestId: 'toolgate-1', reason: 'cancelled' }]);
  });

  it('leaves nothing behind on a signal shared by many calls, however each ends', async () => {
    const upstream = await connect((params) => (params.name === 'fail' ? Promise.reject(new McpError(ErrorCode.InvalidParams, 'no')) : params.name === 'slow' ? new Promise(() => undefined) : Promise.resolve(OK)));
    const signal = new AbortController().signal;
    const calls = ['echo', 'fail', 'slow'].flatMap((tool) => Array.from({ length: 4 }, () => upstream.call(tool, {}, options({ signal, timeout: 50 }))));
    await Promise.allSettled(calls);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('rejects at once with the error of a send that fails, and drops the call: no timeout fires for it later', async () => {
    const upstream = await connect(() => Promise.resolve(OK));
    const failure = new Error('Not connected');
    const send = upstream.clientSide.send.bind(upstream.clientSide);
    const sent: JSONRPCMessage[] = [];
    upstream.clientSide.send = (message, sendOptions) => {
      sent.push(message);
      return 'id' in message ? Promise.reject(failure) : send(message, sendOptions);
    };
    const signal = new AbortController().signal;
    await expect(upstream.call('echo', {}, options({ signal, timeout: 30 }))).rejects.toBe(failure);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    await sleep(60);
    expect(sent.map((message) => ('method' in message ? message.method : ''))).toEqual(['tools/call']);
  });

  it('leaves a request named notifications/progress to the SDK: it is refused, and neither reports progress nor keeps a call alive', async () => {
    const upstream = await connect(() => new Promise(() => undefined));
    const seen: Progress[] = [];
    const pending = upstream.call('slow', {}, options({ onprogress: (update) => seen.push(update) }));
    await sleep(20);
    upstream.inject({ jsonrpc: '2.0', id: 7, method: 'notifications/progress', params: { progressToken: 'toolgate-1', progress: 1 } });
    await expect.poll(() => upstream.received.find((message) => 'id' in message && message.id === 7)).toMatchObject({ error: { code: ErrorCode.MethodNotFound } });
    expect(seen).toEqual([]);
    await upstream.clientSide.close();
    await expect(pending).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });

  it('rejects every call in flight when the connection closes', async () => {
    const upstream = await connect(() => new Promise(() => undefined));
    const pending = [upstream.call('a', {}, options()), upstream.call('b', {}, options())];
    await sleep(20);
    await upstream.clientSide.close();
    for (const call of pending) await expect(call).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });

  it('holds against a hostile upstream: an answer to an id never sent, or sent twice, settles nothing it should not', async () => {
    let answer: ((result: CallToolResult) => void) | undefined;
    const upstream = await connect(() => new Promise((resolve) => (answer = resolve)));
    const errors: Error[] = [];
    upstream.client.onerror = (error) => errors.push(error);
    const pending = upstream.call('slow', {}, options());
    await expect.poll(() => answer).toBeDefined();
    // Ids this module never sent (or no longer waits on) go on to the SDK, which reports them and drops them.
    upstream.inject({ jsonrpc: '2.0', id: 'toolgate-9', result: { content: [{ type: 'text', text: 'forged' }] } });
    upstream.inject({ jsonrpc: '2.0', id: 'toolgate-1', method: 'tools/call', params: { name: 'x' } });
    answer?.(OK);
    await expect(pending).resolves.toEqual(OK);
    upstream.inject({ jsonrpc: '2.0', id: 'toolgate-1', result: { content: [{ type: 'text', text: 'again' }] } });
    expect(errors.map((error) => error.message).join('\n')).toMatch(/unknown message ID/);
  });
});
