import { describe, expect, test } from 'vitest';
import { exactArgvPattern, matchArgvPattern } from './match-argv-pattern.js';

describe('matchArgvPattern', () => {
  test('a glob pattern: `*` within an element, a final `*` for any remaining elements', () => {
    expect(matchArgvPattern(['npm', 'run', '*'], ['npm', 'run', 'test', '--', '-w'])).toBe(true);
    expect(matchArgvPattern(['npm', 'run', '*'], ['npm', 'run'])).toBe(true);
    expect(matchArgvPattern(['git', 'log', '--format=*'], ['git', 'log', '--format=%H'])).toBe(true);
    expect(matchArgvPattern(['git', 'status'], ['git status'])).toBe(false);
  });

  test('an exact pattern compares every element byte for byte, `*` included', () => {
    const pattern = exactArgvPattern(['rm', '-rf', '*']);
    expect(matchArgvPattern(pattern, ['rm', '-rf', '*'])).toBe(true);
    expect(matchArgvPattern(pattern, ['rm', '-rf', '/home', '/etc'])).toBe(false);
    expect(matchArgvPattern(pattern, ['rm', '-rf'])).toBe(false);
    expect(matchArgvPattern(pattern, ['rm', '-rf', 'x'])).toBe(false);
    expect(matchArgvPattern(exactArgvPattern(['ls', '*.ts']), ['ls', 'a.ts'])).toBe(false);
    expect(matchArgvPattern(exactArgvPattern(['ls', '*.ts']), ['ls', '*.ts'])).toBe(true);
  });

  test('an exact pattern is frozen, and an equal array built elsewhere is still a glob', () => {
    const pattern = exactArgvPattern(['rm', '-rf', '*']);
    expect(Object.isFrozen(pattern)).toBe(true);
    expect(matchArgvPattern(['rm', '-rf', '*'], ['rm', '-rf', '/home'])).toBe(true);
  });

  test('an element of many stars is read in time proportional to the value', () => {
    // Matched by backtracking (a `[\s\S]*` for each star), this would not end.
    expect(matchArgvPattern(['*a*a*a*a*a*a*X'], ['a'.repeat(50_000)])).toBe(false);
    expect(matchArgvPattern(['*a*a*a*a*a*a*X'], ['aaaaaaX'])).toBe(true);
    expect(matchArgvPattern(['a*b*a'], ['aba'])).toBe(true);
    expect(matchArgvPattern(['a*a'], ['a'])).toBe(false);
  });
});
