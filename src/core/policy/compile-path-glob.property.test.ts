import fc from 'fast-check';
import picomatch from 'picomatch/posix.js';
import { describe, expect, test } from 'vitest';
import { compilePathGlob, pathGlobOptions } from './compile-path-glob.js';
import { compileRule } from './compile-rule.js';
import { RegexProgramError } from './compile-regex-program.js';
import { DEFAULT_PROTECTED_PATHS, withChildren } from './protected-paths.js';
import { runRegexProgram } from './run-regex-program.js';

// The automaton must answer as picomatch's regular expression does, with the flags the policy uses: `s` for an
// allow, `is` for a deny, an ask and a protected path. Patterns and paths from small alphabets reach every corner
// of the glob syntax (classes, braces, extended globs, escapes, stray brackets) with paths that nearly match.

const GLOB_PIECES = ['a', 'b', 'A', '.', '/', '*', '**', '?', '[', ']', '{', '}', ',', '!', '^', '-', '\\', '(', ')', '|', '@', '+', '\n', '..', 'ß', 'σ', 'K', '[:alpha:]', '{1..3}', '$', ':'];
const PATH_PIECES = ['a', 'b', 'A', 'B', '.', '/', '\n', '!', '[', ']', '{', '}', ',', '-', '*', '?', '(', ')', '1', '2', 'ß', 'ς', 'Σ', 'k', 'K', 'ſ', 's', 'S', '..', ' '];

const glob = fc.array(fc.constantFrom(...GLOB_PIECES), { minLength: 1, maxLength: 10 }).map((pieces) => pieces.join(''));
const path = fc.array(fc.constantFrom(...PATH_PIECES), { maxLength: 12 }).map((pieces) => pieces.join(''));

/** A glob and paths spelled from it (each wildcard as text it may or may not stand for): matches, not only misses. */
const SPELLINGS: Record<string, readonly string[]> = { '*': ['', 'a', 'ab', '.'], '**': ['', 'a/b', 'a', '.'], '?': ['a', '/', ''], '[:alpha:]': ['a', '1'], '{1..3}': ['2', '{1..3}'] };
const spelled = fc
  .array(fc.constantFrom(...GLOB_PIECES), { minLength: 1, maxLength: 10 })
  .chain((pieces) =>
    fc.tuple(fc.constant(pieces.join('')), fc.array(fc.tuple(...pieces.map((piece) => fc.constantFrom(...(SPELLINGS[piece] ?? [piece, piece.toUpperCase(), ''])))), { minLength: 1, maxLength: 4 })),
  )
  .map(([pattern, texts]) => [pattern, texts.map((parts) => parts.join(''))] as const);

/** What today's policy asks picomatch: its source under the policy's flags. */
function regexAnswer(pattern: string, text: string, nocase: boolean): boolean {
  return new RegExp(picomatch.makeRe(pattern, pathGlobOptions(pattern)).source, nocase ? 'is' : 's').test(text);
}

function programAnswer(pattern: string, text: string, nocase: boolean): boolean | 'refused' {
  try {
    return runRegexProgram(compilePathGlob(pattern, nocase).program, text);
  } catch (error) {
    if (error instanceof RegexProgramError) return 'refused';
    throw error;
  }
}

describe('compilePathGlob: picomatch’s answers, in linear time', () => {
  for (const nocase of [false, true]) {
    test(`generated globs and paths (${nocase ? 'case-insensitive' : 'case-sensitive'})`, () => {
      fc.assert(
        fc.property(glob, fc.array(path, { minLength: 1, maxLength: 4 }), spelled, (pattern, texts, [other, spellings]) => {
          for (const [each, text] of [...texts.map((text) => [pattern, text] as const), ...spellings.map((text) => [other, text] as const)]) {
            const answer = programAnswer(each, text, nocase);
            // A refused pattern (a range a shell would not read) never loads as a rule.
            if (answer === 'refused') continue;
            expect({ each, text, answer }).toEqual({ each, text, answer: regexAnswer(each, text, nocase) });
          }
        }),
        { numRuns: 2500 },
      );
    });
  }

  test('paths built from the glob itself (near misses of the policy’s own globs)', () => {
    const pieces = fc.array(fc.constantFrom('a', '.git', '.env', 'x', '/', '.', '..', 'id_rsa', '.ssh', 'settings', '.json', '.claude', '.GIT', '\n'), { maxLength: 8 });
    fc.assert(
      fc.property(fc.constantFrom(...DEFAULT_PROTECTED_PATHS), pieces, (pattern, parts) => {
        const text = parts.join('');
        for (const each of [pattern, withChildren(pattern)]) expect([each, text, programAnswer(each, text, true)]).toEqual([each, text, regexAnswer(each, text, true)]);
      }),
      { numRuns: 2000 },
    );
  });

  test('a hostile path costs its length times the pattern’s', () => {
    const cases: [string, string][] = [
      ['**/*a*a*b', 'a'.repeat(20_000)],
      ['**/a/**/b/**/c{,/**}', `${'a/b/'.repeat(5000)}x`],
      ['**/*a*a*a*a*a*a*b', 'a'.repeat(5000)],
      ['!(*a*a*b)', 'a'.repeat(5000)],
      ['**/+(a|aa)*(b|ab)c', 'a'.repeat(5000)],
      // Each holds the text its glob requires (the last letter last, every name named), so the automaton runs whole.
      ['**/*a*a*b*c', `b${'a'.repeat(20_000)}c`],
      ['**/q/**/r/**/z{,/**}', `z/${'q/r/'.repeat(5000)}x`],
    ];
    for (const [pattern, text] of cases) {
      const started = performance.now();
      expect(programAnswer(pattern, text, true)).toBe(pattern.startsWith('!'));
      expect(performance.now() - started).toBeLessThan(1_500);
    }
  });
});

describe('compilePathGlob: what it refuses', () => {
  test('a glob past the state budget is refused, and a rule holding it does not load', () => {
    const huge = `${'*a'.repeat(12_000)}b`;
    expect(() => compilePathGlob(huge, true)).toThrow(RegexProgramError);
    expect(() => compileRule({ source: 'project', decision: 'deny', rule: `Read(${huge})` }, 0)).toThrow(expect.objectContaining({ problem: 'invalid_pattern' }));
  });

  test('a back-reference (a glob `\\1` beside a group) is refused, never read some other way', () => {
    expect(() => compilePathGlob('@(a)\\1', false)).toThrow(RegexProgramError);
  });
});
