import { PassThrough, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { useJsonLineWriting, writeJsonLine } from './write-json-line.js';

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

describe('writeJsonLine', () => {
  it('writes a long message of many parts as one write of its line', async () => {
    const { stream, writes } = recorder();
    await writeJsonLine(stream, big);
    expect(writes).toEqual([`${JSON.stringify(big)}\n`]);
  });

  it('resolves only once a stream that had to buffer the line drains', async () => {
    const { stream, writes } = recorder(16);
    let drained = false;
    stream.once('drain', () => (drained = true));
    await writeJsonLine(stream, { jsonrpc: '2.0', id: 1, result: { text: 'more than sixteen bytes' } });
    expect(drained).toBe(true);
    expect(writes).toHaveLength(1);
  });

  it('is what the gateway stdio transport sends with, and a client reads the same messages', async () => {
    const stdout = new PassThrough();
    const received: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => received.push(chunk));
    const transport = new StdioServerTransport(new PassThrough(), stdout);
    useJsonLineWriting(transport, stdout);
    await transport.send(big);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    const lines = Buffer.concat(received).toString('utf8').split('\n');
    expect(lines.slice(0, -1).map((line) => JSON.parse(line) as unknown)).toEqual([big, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
  });
});
