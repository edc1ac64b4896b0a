import { describe, expect, it } from 'vitest';
import { CommandLines, compileCommandPattern, matchCommandPattern } from './match-command-pattern.js';

describe('matchCommandPattern over CommandLines', () => {
  it('gives every rule the same reading of one argv, in whatever order the rules ask', () => {
    const wrapped = new CommandLines(['nice', '/usr/bin/rm', '-rf', 'build']);
    const git = new CommandLines(['/usr/bin/git', '-C', '.', 'push', '--force']);
    const denyRm = compileCommandPattern('rm:*', 'deny');
    const denyPush = compileCommandPattern('git push:*', 'ask');
    const allowNice = compileCommandPattern('nice:*', 'allow');
    const allowExact = compileCommandPattern('nice /usr/bin/rm -rf build', 'allow');
    for (let round = 0; round < 2; round += 1) {
      // A deny or ask reads through the wrapper, by the program's base name, and git without its global options.
      expect(matchCommandPattern(denyRm, wrapped, 'deny')).toBe(true);
      expect(matchCommandPattern(denyPush, git, 'ask')).toBe(true);
      // A wildcard allow never approves an exec wrapper; an exact allow reads the quoted line.
      expect(matchCommandPattern(allowNice, wrapped, 'allow')).toBe(false);
      expect(matchCommandPattern(allowExact, wrapped, 'allow')).toBe(true);
      expect(matchCommandPattern(compileCommandPattern('git push:*', 'allow'), git, 'allow')).toBe(false);
    }
    expect(wrapped.all).toEqual(['nice /usr/bin/rm -rf build', 'nice /usr/bin/rm -rf build', '/usr/bin/rm -rf build', '/usr/bin/rm -rf build', 'rm -rf build', 'rm -rf build']);
    expect(wrapped.quoted).toBe('nice /usr/bin/rm -rf build');
  });

  it('matches nothing for an empty argv', () => {
    const lines = new CommandLines([]);
    for (const decision of ['allow', 'deny', 'ask'] as const) expect(matchCommandPattern(compileCommandPattern('*', decision), lines, decision)).toBe(false);
  });

  it('quotes what a person would have typed: an allow does not match a word split differently', () => {
    const lines = new CommandLines(['echo', 'a b']);
    expect(matchCommandPattern(compileCommandPattern('echo a b', 'allow'), lines, 'allow')).toBe(false);
    expect(matchCommandPattern(compileCommandPattern("echo 'a b'", 'allow'), lines, 'allow')).toBe(true);
    // A deny also reads the line joined without quoting.
    expect(matchCommandPattern(compileCommandPattern('echo a b', 'deny'), lines, 'deny')).toBe(true);
  });
});
