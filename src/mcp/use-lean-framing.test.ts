import { PassThrough } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMessageReadBuffer, useLeanFraming } from './use-lean-framing.js';

const line = (message: unknown): Buffer => Buffer.from(`${JSON.stringify(message)}\n`);

function readAll(buffer: ReturnType<typeof createMessageReadBuffer>): JSONRPCMessage[] {
  const messages: JSONRPCMessage[] = [];
  for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) messages.push(message);
  return messages;
}

describe('createMessageReadBuffer', () => {
  it('reads messages split across chunks and several in one chunk', () => {
    const buffer = createMessageReadBuffer(1024);
    const first = line({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo' }] } });
    buffer.append(first.subarray(0, 20));
    expect(buffer.readMessage()).toBeNull();
    buffer.append(Buffer.concat([first.subarray(20), line({ jsonrpc: '2.0', method: 'notifications/initialized' })]));
    expect(readAll(buffer)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo' }] } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
  });

  it('joins a message that arrives in many chunks, with the next one begun in its last chunk', () => {
    const buffer = createMessageReadBuffer(64 * 1024);
    const big = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'z'.repeat(10_000) }] } };
    const wire = Buffer.concat([line(big), line({ jsonrpc: '2.0', id: 2, result: {} }), Buffer.from('{"jsonrpc":"2.0",')]);
    for (let start = 0; start < wire.length; start += 1000) {
      buffer.append(wire.subarray(start, start + 1000));
      if (start + 1000 < line(big).length) expect(buffer.readMessage()).toBeNull();
    }
    expect(readAll(buffer)).toEqual([big, { jsonrpc: '2.0', id: 2, result: {} }]);
    buffer.append(Buffer.from('"id":3,"result":{}}\n'));
    expect(readAll(buffer)).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
  });

  it('throws on a malformed line, having consumed it, and reads the next one', () => {
    const buffer = createMessageReadBuffer(1024);
    buffer.append(Buffer.concat([line({ jsonrpc: '2.0', id: 1, result: [] }), line({ jsonrpc: '2.0', id: 2, result: {} })]));
    expect(() => buffer.readMessage()).toThrow();
    expect(readAll(buffer)).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });

  it('refuses to hold more than its bound, and holds nothing after', () => {
    const buffer = createMessageReadBuffer(64);
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":1,'));
    expect(() => buffer.append(Buffer.alloc(64, 0x20))).toThrow('exceeded maximum size of 64 bytes');
    buffer.append(line({ jsonrpc: '2.0', id: 2, result: {} }));
    expect(readAll(buffer)).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });
});

describe('createMessageReadBuffer under any cutting of its bytes', () => {
  const messages = Array.from({ length: 40 }, (_, id) => ({ jsonrpc: '2.0', id, result: { text: 'é'.repeat((id * 7919) % 40_000) } }));
  const wire = Buffer.concat(messages.map(line));

  it('reads the same messages whether chunks are a byte, a few bytes, or tens of KiB, mixed', () => {
    let seed = 7;
    const random = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (const largest of [1, 40, 20_000, 70_000]) {
      const buffer = createMessageReadBuffer(1024 * 1024);
      const read: JSONRPCMessage[] = [];
      for (let start = 0; start < wire.length; ) {
        const size = 1 + Math.floor(random() * (random() < 0.5 ? 64 : largest));
        // Copied, as a pipe hands each read over in a buffer of its own.
        buffer.append(Buffer.from(wire.subarray(start, start + size)));
        start += size;
        if (random() < 0.7) read.push(...readAll(buffer));
      }
      read.push(...readAll(buffer));
      expect(read).toEqual(messages);
    }
  });

  it('keeps no chunk it was handed under 16 KiB, so a line dripped a byte at a time costs about its length', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const buffer = createMessageReadBuffer(10 * 1024 * 1024);
    const sample: WeakRef<Buffer>[] = [];
    buffer.append(Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"'));
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 400_000; i += 1) {
      const chunk = Buffer.allocUnsafeSlow(1).fill(0x78);
      if (i % 10_000 === 0) sample.push(new WeakRef(chunk));
      buffer.append(chunk);
    }
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(sample.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    // Kept as they came, 400,000 one-byte chunks hold tens of MiB of heap alone.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(4 * 1024 * 1024);
    buffer.append(Buffer.from('"}}\n'));
    const message = buffer.readMessage() as unknown as { params: { data: string } };
    expect(message.params.data).toBe('x'.repeat(400_000));
  });

  it('counts dripped bytes against its bound as it counts any others', () => {
    const buffer = createMessageReadBuffer(64 * 1024);
    for (let i = 0; i < 64 * 1024; i += 1) buffer.append(Buffer.from('x'));
    expect(() => buffer.append(Buffer.from('x'))).toThrow('exceeded maximum size');
    buffer.append(line({ jsonrpc: '2.0', id: 2, result: {} }));
    expect(readAll(buffer)).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
  });
});

describe('useLeanFraming', () => {
  it('puts the lean reading into an SDK stdio server transport, which still refuses what the SDK refuses', async () => {
    const stdin = new PassThrough();
    const transport = new StdioServerTransport(stdin, new PassThrough());
    expect(useLeanFraming(transport, 1024)).toBe(true);
    const received: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    transport.onmessage = (message) => received.push(message);
    transport.onerror = (error) => errors.push(error);
    await transport.start();
    stdin.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }));
    stdin.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', result: {} }));
    stdin.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo' } }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(received.map((message) => 'id' in message && message.id)).toEqual([1, 3]);
    expect(errors).toHaveLength(1);
    await transport.close();
  });

  it('closes the transport on a message past its bound, as the SDK does', async () => {
    const stdin = new PassThrough();
    const transport = new StdioServerTransport(stdin, new PassThrough());
    useLeanFraming(transport, 1024);
    let closed = false;
    transport.onclose = () => (closed = true);
    transport.onerror = () => undefined;
    await transport.start();
    stdin.write(Buffer.alloc(2048, 0x78));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
  });

  it('puts the lean reading into an SDK stdio client transport', () => {
    expect(useLeanFraming(new StdioClientTransport({ command: 'unused' }), 1024)).toBe(true);
  });

  it('leaves a transport that keeps no SDK read buffer as it is', () => {
    const foreign = { _readBuffer: { append: () => undefined } } as unknown as StdioServerTransport;
    expect(useLeanFraming(foreign, 1024)).toBe(false);
  });
});
