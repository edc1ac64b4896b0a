import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { measureJsonBytes } from './measure-json-bytes.js';

const encoder = new TextEncoder();
/** What the bridge really copies: the JSON text, in UTF-8. */
const actual = (value: unknown): number => encoder.encode(JSON.stringify(value, (_key, entry: unknown) => (typeof entry === 'bigint' ? entry.toString() : entry)) ?? 'null').length;

describe('measureJsonBytes', () => {
  it('equals the UTF-8 length of JSON.stringify for any JSON value, escapes, astral characters and lone surrogates included', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('node'), { maxLength: 5 }), fc.dictionary(text, tie('node'), { maxKeys: 5 })),
    })).node;
    fc.assert(
      fc.property(value, (sample) => {
        expect(measureJsonBytes(sample, Number.MAX_SAFE_INTEGER)).toEqual({ kind: 'fits', bytes: actual(sample) });
      }),
    );
  });

  it('is exact at the limit: a value fits a budget of its own size and is over a byte less', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (sample) => {
        const size = actual(sample);
        expect(measureJsonBytes(sample, size)).toEqual({ kind: 'fits', bytes: size });
        expect(measureJsonBytes(sample, size - 1)).toEqual({ kind: 'over' });
      }),
    );
  });

  it('mirrors what JSON leaves out or rewrites: toJSON, undefined, functions, symbols, non-finite numbers, bigints, boxed primitives', () => {
    const samples: unknown[] = [
      { when: new Date(0), skip: undefined, fn: () => 1, sym: Symbol('s'), keep: 1 },
      [undefined, () => 1, Symbol('s'), Number.NaN, Number.POSITIVE_INFINITY, -0],
      { big: 12345678901234567890n, boxed: [new Number(3), new String('é"'), new Boolean(false)] },
      { custom: { toJSON: (key: string) => ({ key, list: [1, 2, 3] }) } },
      undefined,
      { a: undefined },
      { a: undefined, b: 2, c: undefined, d: 'x' },
    ];
    for (const sample of samples) expect(measureJsonBytes(sample, 1_000_000)).toEqual({ kind: 'fits', bytes: actual(sample) });
  });

  it('stops early on a large value: a string longer than the limit is over without being read', () => {
    const huge = 'x'.repeat(50 * 1024 * 1024);
    const started = performance.now();
    expect(measureJsonBytes({ content: huge }, 16 * 1024 * 1024)).toEqual({ kind: 'over' });
    expect(measureJsonBytes(Array.from({ length: 1_000_000 }, () => 'ab'), 1024)).toEqual({ kind: 'over' });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('calls a toJSON that inflates a small object, and measures what it returns', () => {
    const inflating = { toJSON: () => 'y'.repeat(10_000) };
    expect(measureJsonBytes({ small: inflating }, 5_000)).toEqual({ kind: 'over' });
  });

  it('refuses a cycle and nesting deeper than the engine JSON bound as invalid', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(measureJsonBytes(cyclic, 1_000_000)).toEqual({ kind: 'invalid' });
    let deep: unknown = 1;
    for (let index = 0; index < 65; index += 1) deep = [deep];
    expect(measureJsonBytes(deep, 1_000_000)).toEqual({ kind: 'invalid' });
    let shallow: unknown = 1;
    for (let index = 0; index < 64; index += 1) shallow = [shallow];
    expect(measureJsonBytes(shallow, 1_000_000)).toEqual({ kind: 'fits', bytes: actual(shallow) });
  });
});
