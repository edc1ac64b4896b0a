import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createStderrTail } from './create-stderr-tail.js';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('createStderrTail', () => {
  it('keeps only the newest lines, whole, however much the server wrote', async () => {
    const stream = new PassThrough();
    const tail = createStderrTail(stream);
    for (let index = 0; index < 5000; index += 1) stream.write(`line ${index} ${'x'.repeat(40)}\n`);
    stream.write('the last words\n');
    await flush();
    const text = tail.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    const lines = text.split('\n');
    expect(lines).toHaveLength(20);
    expect(lines.at(-1)).toBe('the last words');
    // Every kept line is whole: the fragment the window starts inside is dropped.
    expect(lines.slice(0, -1).every((line) => /^line \d+ x{40}$/.test(line))).toBe(true);
  });

  it('masks secrets and removes control characters an operator would read on a terminal', async () => {
    const stream = new PassThrough();
    const tail = createStderrTail(stream);
    stream.write('connecting with password=hunter22-never-shown\n\u001b[2J\u001b]0;owned\u0007cleared\u202Eevil\n');
    await flush();
    const text = tail.text();
    expect(text).not.toContain('hunter22-never-shown');
    expect(text).toContain('password=');
    // eslint-disable-next-line no-control-regex -- the point is that none are left
    expect(text).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F\u202E]/);
    expect(text).toContain('cleared');
  });

  it('masks the values its configuration gives the server, whatever their shape, and leaves short ones', async () => {
    const stream = new PassThrough();
    const tail = createStderrTail(stream, undefined, ['qz81-plain-token', 'qz81-plain-token-longer', 'true']);
    stream.write('auth failed for qz81-plain-token-longer\nretry with qz81-plain-token: true\n');
    await flush();
    expect(tail.text()).toBe('auth failed for [redacted]\nretry with [redacted]: true');
  });

  it('passes every chunk on when asked, and is empty for a server that wrote nothing', async () => {
    const stream = new PassThrough();
    const forwarded = new PassThrough();
    const seen: string[] = [];
    forwarded.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
    const tail = createStderrTail(stream, forwarded);
    expect(tail.text()).toBe('');
    stream.write('hello\n');
    await flush();
    expect(seen.join('')).toBe('hello\n');
    expect(tail.text()).toBe('hello');
    expect(createStderrTail(null).text()).toBe('');
  });
});
