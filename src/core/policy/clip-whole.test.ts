import { describe, expect, it } from 'vitest';
import { clipWhole } from './clip-whole.js';

describe('clipWhole', () => {
  it('cuts at max code units, or one before when the cut would split a surrogate pair', () => {
    expect(clipWhole('abcdef', 3)).toBe('abc');
    expect(clipWhole('abc', 3)).toBe('abc');
    expect(clipWhole('ab\u{1F600}cd', 3)).toBe('ab');
    expect(clipWhole('ab\u{1F600}cd', 4)).toBe('ab\u{1F600}');
    expect(clipWhole('\u{1F600}', 1)).toBe('');
    for (let max = 0; max < 12; max += 1) expect(clipWhole('a\u{1F600}b\u{E0041}\u{1F600}cd', max).isWellFormed()).toBe(true);
  });
});
