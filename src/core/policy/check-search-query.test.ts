import { describe, expect, it } from 'vitest';
import { checkSearchQuery, MAX_SEARCH_QUERY_LENGTH } from './check-search-query.js';

describe('checkSearchQuery', () => {
  it('accepts a plain query in any script', () => {
    expect(checkSearchQuery('weather in Zürich tomorrow')).toBeUndefined();
    expect(checkSearchQuery('東京 天気 ✓')).toBeUndefined();
  });

  it.each([
    ['a Unicode tag character, which carries text a reader does not see', 'weather\u{E0073}\u{E006B}'],
    ['a musical symbol format control, which can carry it as well', 'weather\u{1D173}'],
    ['a zero-width space', 'wea\u200Bther'],
    ['a bidirectional override', 'weather\u202E'],
    ['a prepended concatenation mark', 'weather\u0600'],
    ['a line break', 'weather\nsecret'],
    ['a lone surrogate half', 'weather\uD800'],
  ])('refuses %s', (_label, query) => {
    expect(checkSearchQuery(query)).toBe('was refused: the search query holds control or invisible characters');
  });

  it('refuses an empty, an overlong and a secret-shaped query, saying which without quoting it', () => {
    expect(checkSearchQuery('  ')).toContain('empty');
    expect(checkSearchQuery('q'.repeat(MAX_SEARCH_QUERY_LENGTH + 1))).toContain('longer than');
    const secret = checkSearchQuery('docs sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789');
    expect(secret).toContain('secret-shaped');
    expect(secret).not.toContain('sk-ant');
  });
});
