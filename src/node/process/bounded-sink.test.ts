import { describe, expect, it } from 'vitest';
import { BoundedSink } from './bounded-sink.js';

describe('BoundedSink', () => {
  it('keeps every chunk that fits and reports no truncation', () => {
    const sink = new BoundedSink(10);
    expect(sink.push(Buffer.from('abc'))).toBe(true);
    expect(sink.push(Buffer.from('defghij'))).toBe(true);
    expect(sink.text()).toBe('abcdefghij');
    expect(sink.truncated).toBe(false);
  });

  it('keeps the part of an overflowing chunk that fits, then refuses', () => {
    const sink = new BoundedSink(5);
    expect(sink.push(Buffer.from('abc'))).toBe(true);
    expect(sink.push(Buffer.from('defg'))).toBe(false);
    expect(sink.truncated).toBe(true);
    expect(sink.text()).toBe('abcde');
    expect(sink.push(Buffer.from('h'))).toBe(false);
    expect(sink.text()).toBe('abcde');
  });

  it('refuses a non-empty chunk with a cap of zero', () => {
    const sink = new BoundedSink(0);
    expect(sink.push(Buffer.from('x'))).toBe(false);
    expect(sink.text()).toBe('');
    expect(sink.truncated).toBe(true);
  });
});
