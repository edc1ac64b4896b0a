import { describe, expect, it } from 'vitest';
import { memoizeByName } from './memoize-by-name.js';

describe('memoizeByName', () => {
  it('computes a name once, a name too long to keep every time, and starts over past 4,096 names', () => {
    const computed: string[] = [];
    const upper = memoizeByName((name) => {
      computed.push(name);
      return name.toUpperCase();
    });
    expect([upper('path'), upper('path'), upper('content')]).toEqual(['PATH', 'PATH', 'CONTENT']);
    expect(computed).toEqual(['path', 'content']);
    const long = 'k'.repeat(129);
    upper(long);
    upper(long);
    expect(computed.filter((name) => name === long)).toHaveLength(2);
    for (let index = 0; index < 4096; index += 1) upper(`n${index}`);
    computed.length = 0;
    // The map started over at the 4,097th name: the first names are computed again, the newest is still kept.
    expect(upper('path')).toBe('PATH');
    expect(upper('n4095')).toBe('N4095');
    expect(computed).toEqual(['path']);
  });
});
