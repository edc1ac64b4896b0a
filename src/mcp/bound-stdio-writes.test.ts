import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundStdioWrites, pauseMarkFor, unreadOverflowReason } from './bound-stdio-writes.js';

/** A peer that reads only when told to. */
function slowPeer(): { output: Writable; read: () => void; received: () => number } {
  let received = 0;
  const waiting: (() => void)[] = [];
  let open = false;
  const output = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (open) done();
      else waiting.push(done);
    },
  });
  return {
    output,
    read: () => {
      open = true;
      for (const done of waiting.splice(0)) done();
    },
    received: () => received,
  };
}

const line = (bytes: number): string => `${'x'.repeat(bytes - 1)}\n`;

describe('boundStdioWrites', () => {
  it('stops reading the peer past the pause mark and reads it again once it has drained, with one drain listener', async () => {
    const peer = slowPeer();
    const input = new PassThrough();
    input.on('data', () => undefined);
    const writer = boundStdioWrites({ output: peer.output, input, maxUnreadBytes: 64 * 1024 * 1024, onOverflow: () => undefined });
    const listeners = peer.output.listenerCount('drain');
    for (let i = 0; i < 200; i += 1) expect(writer.write(line(8 * 1024))).toBe(true);
    expect(input.isPaused()).toBe(true);
    expect(peer.output.listenerCount('drain')).toBe(listeners);
    const drained = new Promise((resolve) => peer.output.once('drain', resolve));
    peer.read();
    await drained;
    expect(input.isPaused()).toBe(false);
    expect(peer.received()).toBe(200 * 8 * 1024);
  });

  it('writes a message larger than the bound to a peer that has read what came before, and pauses until it is read', async () => {
    const peer = slowPeer();
    const input = new PassThrough();
    input.on('data', () => undefined);
    let overflows = 0;
    const writer = boundStdioWrites({ output: peer.output, input, maxUnreadBytes: 64 * 1024, onOverflow: () => (overflows += 1) });
    expect(writer.write([line(100 * 1024), line(100 * 1024)])).toBe(true);
    expect(input.isPaused()).toBe(true);
    const drained = new Promise((resolve) => peer.output.once('drain', resolve));
    peer.read();
    await drained;
    expect(writer.write(line(1024))).toBe(true);
    expect(overflows).toBe(0);
    expect(input.isPaused()).toBe(false);
  });

  it('closes a peer that has left more than the bound unread: drops what it holds, reads its input to the end, and refuses more', () => {
    const peer = slowPeer();
    const input = new PassThrough();
    input.on('data', () => undefined);
    let overflows = 0;
    const writer = boundStdioWrites({ output: peer.output, input, maxUnreadBytes: 64 * 1024, onOverflow: () => (overflows += 1) });
    let written = 0;
    while (writer.write(line(1024))) written += 1;
    expect(written).toBeGreaterThan(64);
    expect(written).toBeLessThan(70);
    expect(overflows).toBe(1);
    expect(peer.output.destroyed).toBe(true);
    expect(input.isPaused()).toBe(false);
    expect(writer.write(line(10))).toBe(false);
    expect(overflows).toBe(1);
  });

  it('pauses at 1 MiB, or a quarter of a smaller bound, never under the stream’s high-water mark', () => {
    const stream = new PassThrough({ highWaterMark: 16 * 1024 });
    expect(pauseMarkFor(stream, 64 * 1024 * 1024)).toBe(1024 * 1024);
    expect(pauseMarkFor(stream, 256 * 1024)).toBe(64 * 1024);
    expect(pauseMarkFor(stream, 1024)).toBe(16 * 1024);
  });

  it('names the bound in the reason it gives', () => {
    expect(unreadOverflowReason(64 * 1024 * 1024)).toContain('more than 64 MiB');
    expect(unreadOverflowReason(256 * 1024)).toContain('more than 256 KiB');
  });
});
