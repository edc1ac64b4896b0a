import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringLengthArray } from '../tools/__fixtures__/direct-fixtures.js';
import { detachJson, maxJsonItems, measureParsedJson, sizeBoundOf, snapshotJson } from './snapshot-json.js';

describe('snapshotJson', () => {
  it('copies: the result is detached from the caller’s object', () => {
    const original = { a: [1, { b: 'x' }], c: null };
    const snapshot = snapshotJson(original);
    expect(snapshot.ok).toBe(true);
    if (!snapshot.ok) return;
    expect(snapshot.value).toEqual(original);
    expect(snapshot.value).not.toBe(original);
    expect((snapshot.value as { a: object[] }).a[1]).not.toBe(original.a[1]);
    original.c = 'changed' as unknown as null;
    expect((snapshot.value as { c: unknown }).c).toBeNull();
  });

  it('owned values (fresh JSON.parse output) are checked in place, not copied', () => {
    const parsed = JSON.parse('{"a":{"b":[1,2]},"__proto__":{"polluted":true}}') as Record<string, unknown>;
    const snapshot = measureParsedJson(parsed);
    expect(snapshot.ok && snapshot.value).toBe(parsed);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(measureParsedJson(JSON.parse('{"n":1e400}'))).toMatchObject({ ok: false, problem: 'a number is not finite' });
    expect(measureParsedJson(JSON.parse(`${'['.repeat(100)}${']'.repeat(100)}`))).toMatchObject({ ok: false, problem: 'nesting is deeper than 64' });
  });

  it('a caller\'s cyclic object fails the measure as too deep; a polluted prototype only raises the bound', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(measureParsedJson(cyclic)).toMatchObject({ ok: false, problem: 'nesting is deeper than 64' });
    expect(measureParsedJson({ deep: { n: Number.NEGATIVE_INFINITY } })).toMatchObject({ ok: false, problem: 'a number is not finite' });
    const clean = measureParsedJson({ a: 'x' });
    Object.defineProperty(Object.prototype, 'planted', { value: 'y'.repeat(100), enumerable: true, configurable: true, writable: true });
    let polluted: ReturnType<typeof measureParsedJson>;
    try {
      polluted = measureParsedJson({ a: 'x' });
    } finally {
      delete (Object.prototype as Record<string, unknown>).planted;
    }
    expect(polluted.ok && clean.ok && polluted.sizeBound > clean.sizeBound).toBe(true);
  });

  it('keeps "__proto__" as data and refuses what JSON cannot hold', () => {
    const hostile = JSON.parse('{"__proto__":{"isAdmin":true}}') as object;
    const snapshot = snapshotJson(hostile);
    expect(snapshot.ok && Object.getPrototypeOf(snapshot.value)).toBe(Object.prototype);
    expect(snapshot.ok && Object.keys(snapshot.value as object)).toEqual(['__proto__']);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    let deep: unknown = 1;
    for (let index = 0; index < 100; index += 1) deep = [deep];
    for (const [value, problem] of [
      [cyclic, 'the value is cyclic'],
      [{ f: () => 1 }, 'a function is not JSON'],
      [{ d: new Date() }, 'an object is not a plain JSON object'],
      [{ n: Number.NaN }, 'a number is not finite'],
      [deep, 'nesting is deeper than 64'],
      [{ list: stringLengthArray() }, 'an array is not a plain JSON array'],
    ] as const) {
      expect(snapshotJson(value)).toEqual({ ok: false, problem });
    }
    expect(sizeBoundOf({ list: stringLengthArray() }, 0)).toBeNaN();
  });

  it('property: the size bound is never below the canonical UTF-8 size', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const snapshot = snapshotJson(value);
        expect(snapshot.ok).toBe(true);
        if (snapshot.ok) expect(snapshot.sizeBound).toBeGreaterThanOrEqual(new TextEncoder().encode(JSON.stringify(value)).length);
        const owned = measureParsedJson(JSON.parse(JSON.stringify(value)));
        expect(owned.ok && owned.sizeBound).toBe(snapshot.ok && snapshot.sizeBound);
      }),
      { numRuns: 300 },
    );
  });
});

describe('number size bound', () => {
  it('covers the longest ECMAScript number form', () => {
    const value = [-0.0000010253239326734201];
    const snapshot = snapshotJson(value);
    expect(snapshot.ok && snapshot.sizeBound).toBeGreaterThanOrEqual(JSON.stringify(value).length);
  });
});

describe('array length bound', () => {
  it('holds as many items as JSON of that many bytes can, and refuses a longer array before walking it', () => {
    expect(JSON.stringify([0, 0, 0]).length).toBe(7);
    expect(maxJsonItems(7)).toBe(3);
    expect(maxJsonItems(0)).toBe(0);
    expect(snapshotJson([0, 0, 0], maxJsonItems(7)).ok).toBe(true);
    expect(snapshotJson([0, 0, 0, 0], maxJsonItems(7))).toEqual({ ok: false, problem: 'an array holds more items than the arguments may' });
    let reads = 0;
    const endless = new Proxy([], { get: (_target, key) => (key === 'length' ? 2 ** 40 : (reads += 1)) });
    expect(snapshotJson({ a: endless }, maxJsonItems(65_536)).ok).toBe(false);
    expect(detachJson({ a: endless }, 0, maxJsonItems(65_536))).toBeUndefined();
    expect(reads).toBe(0);
  });
});
