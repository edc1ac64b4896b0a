import { describe, expect, it } from 'vitest';
import { compilePathGlob } from './compile-path-glob.js';
import { MAX_BRACE_RANGE_VALUES } from './expand-brace-range.js';
import { RegexProgramError } from './regex-program-error.js';
import { runRegexProgram } from './run-regex-program.js';

const matches = (glob: string, path: string): boolean => runRegexProgram(compilePathGlob(glob, false).program, path);
const refusal = (glob: string): unknown => {
  try {
    compilePathGlob(glob, false);
    return undefined;
  } catch (error) {
    return error;
  }
};

describe('a range in braces, as a shell expands it', () => {
  it('stands for every whole number between its ends, either end first, and nothing else', () => {
    for (const glob of ['key{1..12}.pem', 'key{12..1}.pem']) {
      for (let value = 1; value <= 12; value += 1) expect(matches(glob, `key${value}.pem`), `${glob} key${value}`).toBe(true);
      for (const miss of ['key0.pem', 'key13.pem', 'key01.pem', 'key.pem', 'key1-12.pem', 'key[1-12].pem']) expect(matches(glob, miss), `${glob} ${miss}`).toBe(false);
    }
  });

  it('pads every value to the wider end when an end is written with a leading zero, as bash does', () => {
    expect(matches('{01..20}', '07')).toBe(true);
    expect(matches('{01..20}', '7')).toBe(false);
    expect(matches('{1..010}', '007')).toBe(true);
    expect(matches('{-05..5}', '-03')).toBe(true);
    expect(matches('{-05..5}', '003')).toBe(true);
    expect(matches('{-3..3}', '-3')).toBe(true);
    expect(matches('{-3..3}', '0')).toBe(true);
    expect(matches('{-3..3}', '4')).toBe(false);
  });

  it('steps by its third part, whatever its sign', () => {
    for (const glob of ['{0..20..5}', '{0..20..-5}']) {
      for (const hit of ['0', '5', '10', '15', '20']) expect(matches(glob, hit), `${glob} ${hit}`).toBe(true);
      for (const miss of ['1', '6', '25']) expect(matches(glob, miss), `${glob} ${miss}`).toBe(false);
    }
  });

  it('stands for the letters between two letters, the signs between Z and a included, each as itself', () => {
    expect(matches('{a..f}', 'c')).toBe(true);
    expect(matches('{a..f}', 'g')).toBe(false);
    expect(matches('{Y..b}', '_')).toBe(true);
    expect(matches('{Y..b}', '\\')).toBe(true);
    expect(matches('{Y..b}', 'X')).toBe(false);
    expect(matches('{a..f}{01..03}.sql', 'c02.sql')).toBe(true);
  });

  it('is refused, typed, when a shell would not read it as a range, or it stands for too many values', () => {
    for (const glob of ['{a..}', '{..3}', '{x1..x9}', '{1..a}', '{1..3..0}', '{1..2..3..4}', '{1..3,7}']) {
      expect(refusal(glob), glob).toMatchObject({ name: 'RegexProgramError', code: 'unsupported_syntax', message: expect.stringContaining('is not a range') });
    }
    const large = refusal(`{1..${MAX_BRACE_RANGE_VALUES + 1}}`);
    expect(large).toBeInstanceOf(RegexProgramError);
    expect(large).toMatchObject({ code: 'too_large', message: expect.stringContaining('1,001 values') });
    expect(refusal(`{1..${MAX_BRACE_RANGE_VALUES}}`)).toBeUndefined();
    expect(refusal('{1..99999999999999999999}')).toMatchObject({ code: 'unsupported_syntax' });
  });
});
