import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from './nests-deeper-than.js';

const arrays = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
const objects = (depth: number): unknown => JSON.parse(`${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`);

describe('nestsDeeperThan', () => {
  it('counts the value itself as level 1, and a scalar as no level', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan(objects(64), 64)).toBe(false);
    expect(nestsDeeperThan(objects(65), 64)).toBe(true);
    expect(nestsDeeperThan(arrays(64), 64)).toBe(false);
    expect(nestsDeeperThan(arrays(65), 64)).toBe(true);
  });

  it('finds the deep branch among shallow siblings, in arrays and objects', () => {
    expect(nestsDeeperThan({ a: 1, b: [1, 2, { c: arrays(3) }], d: 'x' }, 5)).toBe(true);
    expect(nestsDeeperThan({ a: 1, b: [1, 2, { c: arrays(2) }], d: 'x' }, 5)).toBe(false);
  });

  it('judges a value nested a million levels deep, which JSON.stringify cannot', () => {
    const deep = arrays(1_000_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(nestsDeeperThan(deep, 64)).toBe(true);
  });
});
