import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { honourCancellations } from './honour-cancellations.js';

/** A transport as the SDK's server left it: what reached the server, and the streams ended. */
function transport() {
  const delivered: JSONRPCMessage[] = [];
  const ended: unknown[] = [];
  const stub = {
    onmessage: (message: JSONRPCMessage) => void delivered.push(message),
    send: (_message: JSONRPCMessage) => Promise.resolve(),
    closeSSEStream: (id: unknown) => void ended.push(id),
  };
  honourCancellations(stub as unknown as StreamableHTTPServerTransport);
  return {
    delivered,
    ended,
    receive: (message: object): void => stub.onmessage(message as JSONRPCMessage),
    answer: (id: string): Promise<void> => stub.send({ jsonrpc: '2.0', id, result: {} }),
  };
}

const request = (id: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } });
const cancel = (id: string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });

describe('honourCancellations', () => {
  afterEach(() => vi.useRealTimers());

  it('ends the stream of a running request once its cancellation reached the server', () => {
    const t = transport();
    t.receive(request('a'));
    t.receive(cancel('a'));
    expect(t.delivered.map((message) => ('method' in message ? message.method : ''))).toEqual(['tools/call', 'notifications/cancelled']);
    expect(t.ended).toEqual(['a']);
  });

  it('does not run a request whose cancellation came first, nor one a cancellation 30 s old names', () => {
    vi.useFakeTimers();
    const t = transport();
    t.receive(cancel('early'));
    t.receive(request('early'));
    expect(t.delivered.filter((message) => 'id' in message)).toEqual([]);
    expect(t.ended).toEqual(['early']);
    t.receive(cancel('stale'));
    vi.advanceTimersByTime(30_001);
    t.receive(request('stale'));
    expect(t.delivered.filter((message) => 'id' in message)).toHaveLength(1);
  });

  it('keeps no cancellation of a request already answered, and at most 1,024 waiting', async () => {
    const t = transport();
    t.receive(request('done'));
    await t.answer('done');
    t.receive(cancel('done'));
    t.receive(request('done'));
    expect(t.delivered.filter((message) => 'id' in message)).toHaveLength(2);
    for (let index = 0; index <= 1024; index += 1) t.receive(cancel(`c${index}`));
    // The oldest went first: its request runs.
    t.receive(request('c0'));
    t.receive(request('c1024'));
    expect(t.delivered.filter((message) => 'id' in message).map((message) => (message as { id: string }).id)).toEqual(['done', 'done', 'c0']);
  });
});
