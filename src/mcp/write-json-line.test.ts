import { PassThrough, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { useJsonLineWriting } from './write-json-line.js';

const big: JSONRPCMessage = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: `${'x'.repeat(40_000)} —` }], structuredContent: { content: 'y'.repeat(40_000) } } };

/** A stream that records each write it is handed: one entry per `_write` or `_writev`. */
function recorder(highWaterMark?: number): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    ...(highWaterMark === undefined ? {} : { highWaterMark }),
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString('utf8'));
      setImmediate(done);
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => (chunk as Buffer).toString('utf8')).join(''));
      setImmediate(done);
    },
  });
  return { stream, writes };
}

function writing(stdout: Writable, onOverflow = (): void => undefined): Parameters<typeof useJsonLineWriting>[1] {
  return { stdin: new PassThrough(), stdout, maxUnreadBytes: 64 * 1024 * 1024, onOverflow };
}

describe('useJsonLineWriting', () => {
  it('writes a long message of many parts as one write of its line', async () => {
    const { stream, writes } = recorder();
    const transport = new StdioServerTransport(new PassThrough(), stream);
    useJsonLineWriting(transport, writing(stream));
    await transport.send(big);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([`${JSON.stringify(big)}\n`]);
  });

  it('resolves once the stream holds the line, drained or not, and waits on drain with no listener of its own per write', async () => {
    const { stream, writes } = recorder(16);
    const transport = new StdioServerTransport(new PassThrough(), stream);
    useJsonLineWriting(transport, writing(stream));
    const drainListeners = stream.listenerCount('drain');
    await Promise.all(Array.from({ length: 50 }, (_, id) => transport.send({ jsonrpc: '2.0', id, result: { text: 'more than sixteen bytes' } })));
    expect(stream.listenerCount('drain')).toBe(drainListeners);
    await new Promise((resolve) => stream.once('drain', resolve));
    expect(writes.join('').split('\n')).toHaveLength(51);
  });

  it('is what the gateway stdio transport sends with, and a client reads the same messages', async () => {
    const stdout = new PassThrough();
    const received: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => received.push(chunk));
    const transport = new StdioServerTransport(new PassThrough(), stdout);
    useJsonLineWriting(transport, writing(stdout));
    await transport.send(big);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const lines = Buffer.concat(received).toString('utf8').split('\n');
    expect(lines.slice(0, -1).map((line) => JSON.parse(line) as unknown)).toEqual([big, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });

  it('refuses to send once the client has left more than its bound unread, and says so once', async () => {
    const stdout = new PassThrough({ highWaterMark: 1024 });
    const transport = new StdioServerTransport(new PassThrough(), stdout);
    let overflows = 0;
    useJsonLineWriting(transport, { ...writing(stdout, () => (overflows += 1)), maxUnreadBytes: 64 * 1024 });
    await transport.send(big);
    await expect(transport.send({ jsonrpc: '2.0', id: 8, result: {} })).rejects.toThrow('left too much of the output unread');
    await expect(transport.send({ jsonrpc: '2.0', id: 9, result: {} })).rejects.toThrow();
    expect(overflows).toBe(1);
    expect(stdout.destroyed).toBe(true);
  });
});
