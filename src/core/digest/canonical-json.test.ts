import canonicalizeModule from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { sha256Hex } from './sha256.js';

// The reference implementation is CommonJS (`module.exports = serialize`); its typings declare an ES default.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/** Rebuild an object with its keys in reverse insertion order. */
function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder);
  if (typeof value !== 'object' || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) Object.defineProperty(result, key, { value: reorder((value as Record<string, unknown>)[key]), enumerable: true });
  return result;
}

describe('canonicalJson (RFC 8785)', () => {
  it('matches the reference canonicalize package on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it('matches on strings and keys of any UTF-16 units: escapes, control characters, lone and paired surrogates', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary' }), fc.string({ unit: 'binary' }), (value, text) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
        expect(canonicalJson({ [text]: text })).toBe(canonicalize({ [text]: text }));
      }),
      { numRuns: 500 },
    );
    for (const text of ['"', '\\', '\n\t\b\f\r', '\u0001\u001f', '\u007f', '\u2028\u2029', '\ud800', 'a\udfffb', '😀', '\ud83d\ude00x\ud83d']) {
      expect(canonicalJson([text])).toBe(JSON.stringify([text]));
    }
  });

  it('matches on numbers at the edges of the ECMAScript shortest form', () => {
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(canonicalJson({ value })).toBe(canonicalize({ value }));
      }),
    );
    for (const value of [1e21, 1e-7, -0, 5e-324, 1.7976931348623157e308, 0.1 + 0.2]) expect(canonicalJson(value)).toBe(canonicalize(value));
  });

  it('sorts keys by UTF-16 code units (astral and BMP-private characters included)', () => {
    const value = { '\u{1F600}': 1, '\uFB33': 2, a: 3, B: 4, '': 5 };
    expect(canonicalJson(value)).toBe(canonicalize(value));
  });

  it('sorts objects of every size as the reference does: few keys, and more than the insertion sort takes', () => {
    const key = fc.oneof(fc.string({ unit: 'binary', maxLength: 4 }), fc.constantFrom('9', '10', '01', 'a', 'B', '\u00e9', '\uffff', '\ud800'));
    fc.assert(
      fc.property(fc.dictionary(key, fc.integer(), { maxKeys: 40 }), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
        expect(canonicalJson(reorder(value))).toBe(canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it('is independent of key order, so the digest is too', async () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(reorder(value))).toBe(canonicalJson(value));
      }),
      { numRuns: 300 },
    );
    const value = { b: [1, { y: 2, x: 1 }], a: 'x' };
    expect(await sha256Hex(canonicalJson(value))).toBe(await sha256Hex(canonicalJson(reorder(value))));
  });

  it('refuses values with no canonical form', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, 1n, cyclic, undefined]) expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('hashes with SHA-256 (known vector)', async () => {
    expect(await sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
