import { describe, expect, it } from 'vitest';
import { exceedsJsonTextBytes } from './exceeds-json-text-bytes.js';

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

  it('measures a value nested deeper than JSON walks usually go', () => {
    let deep: unknown = { leaf: 'x'.repeat(1000) };
    for (let level = 0; level < 2000; level += 1) deep = [deep];
    expect(exceedsJsonTextBytes(deep, 10_000)).toBe(false);
    expect(exceedsJsonTextBytes(deep, 2_000)).toBe(true);
  });
});
