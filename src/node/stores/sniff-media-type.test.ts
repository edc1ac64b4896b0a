import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeText } from './sniff-media-type.js';

/** What the UTF-8 decoder alone says of the bytes: the text, or undefined when they are no UTF-8. */
function decodedStrictly(bytes: Uint8Array, keepBom: boolean): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: keepBom }).decode(bytes);
  } catch {
    return undefined;
  }
}

describe('decodeText', () => {
  it('reads ASCII, UTF-8 and a byte order mark as the UTF-8 decoder does', () => {
    expect(decodeText(Buffer.from('plain ascii\n'))).toBe('plain ascii\n');
    expect(decodeText(Buffer.from('naïve € 😀'))).toBe('naïve € 😀');
    expect(decodeText(Buffer.from('\uFEFFwith bom'))).toBe('with bom');
    expect(decodeText(Buffer.from('\uFEFFwith bom'), true)).toBe('\uFEFFwith bom');
    expect(decodeText(new Uint8Array(0))).toBe('');
  });

  it('refuses bytes that are no UTF-8, and a NUL early in the file, as binary', () => {
    expect(decodeText(Buffer.from([0x61, 0xff, 0x62]))).toBeUndefined();
    expect(decodeText(Buffer.from([0x61, 0xc3]))).toBeUndefined();
    expect(decodeText(Buffer.from([0x61, 0x00, 0x62]))).toBeUndefined();
  });

  it('reads a view into a larger buffer by its own bytes only', () => {
    const whole = Buffer.from('xxhello worldyy');
    expect(decodeText(whole.subarray(2, 13))).toBe('hello world');
    expect(decodeText(new Uint8Array(whole.buffer, whole.byteOffset + 2, 11))).toBe('hello world');
  });

  it('agrees with the UTF-8 decoder on any bytes without a NUL', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ minLength: 0, maxLength: 64 }),
      fc.array(fc.integer({ min: 1, max: 0x7f }), { maxLength: 64 }).map((codes) => Uint8Array.from(codes)),
      fc.string({ unit: 'binary', maxLength: 32 }).map((text) => new TextEncoder().encode(text)),
    );
    fc.assert(
      fc.property(bytes, fc.boolean(), (input, keepBom) => {
        const expected = input.includes(0) ? undefined : decodedStrictly(input, keepBom);
        expect(decodeText(input, keepBom)).toBe(expected);
      }),
    );
  });
});

