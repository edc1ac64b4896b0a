import fc from 'fast-check';
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

/** The regular expression a pattern was read as before it was matched in linear time: the reading must not change. */
function asRegex(specifier: string, decision: 'allow' | 'deny'): RegExp {
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const text = specifier.trim();
  if (text.endsWith(':*')) return new RegExp(`^${escape(text.slice(0, -2))}(?: [\\s\\S]*)?$`);
  if (!text.includes('*')) return new RegExp(`^${escape(text)}$`);
  const optionalTail = text.endsWith(' *') && (decision !== 'allow' || text.indexOf('*') === text.length - 1);
  const body = optionalTail ? text.slice(0, -2) : text;
  return new RegExp(`^${body.split('*').map(escape).join('[\\s\\S]*')}${optionalTail ? '(?: [\\s\\S]*)?' : ''}$`);
}

describe('compileCommandPattern in linear time', () => {
  it('reads every line as the backtracking regular expression did', () => {
    const piece = fc.constantFrom('git', ' ', '-m', '*', 'a', ':*', 'x', '--amend', '.', '\n');
    const text = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, text, fc.constantFrom('allow' as const, 'deny' as const), (specifier, line, decision) => {
        expect(compileCommandPattern(specifier, decision).test(line)).toBe(asRegex(specifier, decision).test(line));
      }),
      { numRuns: 5000 },
    );
  });

  it("reads a 60 KB line full of a rule's middle word at once", () => {
    const pattern = compileCommandPattern('git * -m * -m * --amend', 'deny');
    const line = `git ${' -m'.repeat(20_000)} x`;
    const started = performance.now();
    expect(pattern.test(line)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
