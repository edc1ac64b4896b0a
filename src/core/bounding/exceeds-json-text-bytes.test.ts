import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonTextBytes, jsonTextBytesWithin } from './exceeds-json-text-bytes.js';

describe('exceedsJsonTextBytes', () => {
  it('counts a value as its JSON text, escapes aside', () => {
    for (const value of [{ a: 'xy', b: [1, 22, true, null] }, ['é', '😀', { k: -1.5 }], {}, [], { nested: { deeper: ['text'] } }]) {
      const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
      expect(exceedsJsonTextBytes(value, bytes + 16), JSON.stringify(value)).toBe(false);
      expect(exceedsJsonTextBytes(value, Math.max(0, bytes - 16)), JSON.stringify(value)).toBe(true);
    }
  });

  it('measures strings and keys in UTF-8, and stops at the limit', () => {
    expect(exceedsJsonTextBytes({ t: 'é'.repeat(20) }, 64)).toBe(false);
    expect(exceedsJsonTextBytes({ t: 'é'.repeat(30) }, 64)).toBe(true);
    expect(exceedsJsonTextBytes({ ['é'.repeat(30)]: 1 }, 64)).toBe(true);
    expect(exceedsJsonTextBytes(['x'.repeat(10_000_000)], 262_144)).toBe(true);
    expect(exceedsJsonTextBytes(Array.from({ length: 100_000 }, () => 1), 262_144)).toBe(false);
    expect(exceedsJsonTextBytes(Array.from({ length: 200_000 }, () => 1), 262_144)).toBe(true);
  });

  it('counts exactly the bytes of the JSON text of a value whose strings need no escape', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', 'é', '日', '😀', '-', '.'), maxLength: 12 });
    const leaf = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant(-0), fc.date({ noInvalidDate: true }), fc.constant(new Date(Number.NaN)));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ maxDepth: 4 }, leaf, tie('list'), tie('record')),
      list: fc.oneof(fc.array(tie('value'), { maxLength: 5 }), fc.sparseArray(fc.integer(), { maxLength: 5 })),
      record: fc.dictionary(text, tie('value'), { maxKeys: 5 }),
    }));
    fc.assert(
      fc.property(value, (input) => {
        const json = JSON.stringify(input) as string | undefined;
        if (json === undefined) return;
        const bytes = new TextEncoder().encode(json).length;
        expect(jsonTextBytesWithin(input, bytes)).toBe(bytes);
        expect(exceedsJsonTextBytes(input, bytes - 1)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('measures what toJSON makes of a value, not the object that has it', () => {
    const dates = Array.from({ length: 100 }, (_, index) => new Date(index * 1e9));
    expect(jsonTextBytesWithin(dates, 1_000_000)).toBe(JSON.stringify(dates).length);
    expect(exceedsJsonTextBytes({ big: { toJSON: () => 'z'.repeat(100_000) } }, 65_536)).toBe(true);
  });

  it('measures a value nested deeper than JSON walks usually go', () => {
    let deep: unknown = { leaf: 'x'.repeat(1000) };
    for (let level = 0; level < 2000; level += 1) deep = [deep];
    expect(exceedsJsonTextBytes(deep, 10_000)).toBe(false);
    expect(exceedsJsonTextBytes(deep, 2_000)).toBe(true);
  });
});
