import { describe, expect, it } from 'vitest';
import { compilePathGlob } from './compile-path-glob.js';
import { MAX_BRACE_RANGE_VALUES, MAX_STEPPED_RANGE_VALUES } from './expand-brace-range.js';
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

/** Every value of `{from..to..step}` as bash spells it: the reference the automaton is held to. */
function bashValues(from: string, to: string, step = 1): string[] {
  const width = /^-?0\d/.test(from) || /^-?0\d/.test(to) ? Math.max(from.length, to.length) : 0;
  const [low, high] = [Number(from), Number(to)];
  const values: string[] = [];
  for (let value = low; low <= high ? value <= high : value >= high; value += low <= high ? step : -step) {
    values.push(value < 0 ? `-${String(-value).padStart(width - 1, '0')}` : String(value).padStart(width, '0'));
  }
  return values;
}

describe('a range in braces, read as digit classes', () => {
  const ends = ['0', '1', '-1', '9', '10', '-10', '99', '100', '-100', '101', '999', '05', '-05', '007', '00', '-0', '19', '0100', '1000'];
  const spellings = new Set<string>(['', '-', '-0', '-00', '+1', '1a']);
  // Every spelling of the values near the ends, with up to four digits.
  for (const value of [...Array(241).keys()].map((index) => index - 120).concat([...Array(21).keys()].flatMap((index) => [990 + index, -990 - index]))) {
    for (let width = 0; width <= 4; width += 1) spellings.add(value < 0 ? `-${String(-value).padStart(width - 1, '0')}` : String(value).padStart(width, '0'));
  }

  it('matches each value bash spells and no other spelling, whatever its ends, zeros and signs', () => {
    for (const from of ends) {
      for (const to of ends) {
        const values = new Set(bashValues(from, to));
        if (values.size > MAX_BRACE_RANGE_VALUES) continue;
        const { program } = compilePathGlob(`{${from}..${to}}`, false);
        for (const text of spellings) expect(runRegexProgram(program, text), `{${from}..${to}} ${text}`).toBe(values.has(text));
      }
    }
  });

  it('stays a few states whatever the range stands for: a glob of 7,000 ranges is refused at once, where it took 21 s and 2.2 GB', () => {
    expect(matches('key{1..1000}', 'key735')).toBe(true);
    const started = performance.now();
    expect(refusal('{1..999}'.repeat(7000))).toMatchObject({ code: 'too_large', message: expect.stringContaining('states') });
    // About 0.25 s on the shared 2-core machine; a wide margin for a busy one.
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});

describe('a stepped range, read value by value', () => {
  it('stands for its values, and the stepped ranges of one glob for at most MAX_STEPPED_RANGE_VALUES together', () => {
    expect(matches('{0..198..2}', '196')).toBe(true);
    expect(matches('{0..198..2}', '197')).toBe(false);
    expect(matches('{a..z..5}', 'p')).toBe(true);
    expect(refusal(`{1..${MAX_STEPPED_RANGE_VALUES * 2}..2}`)).toBeUndefined();
    expect(refusal(`{1..${MAX_STEPPED_RANGE_VALUES * 2}..2}{0..2..2}`)).toMatchObject({ code: 'too_large', message: expect.stringContaining('stepped ranges') });
    // Refused at its second range, before the other 4,998 are read.
    const started = performance.now();
    expect(refusal('{0..198..2}'.repeat(5000))).toMatchObject({ code: 'too_large' });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('braces a shell reads as a name, not a range', () => {
  it('are refused where picomatch alone reads a range (the backslash before a dot, dots at an end), and an escaped brace is the name', () => {
    for (const glob of ['{1\\..3}', '{1.\\.3}', '{1..3..}', '{..1..3}', '{1....3}', 'x/{a\\..c}.key']) {
      expect(refusal(glob), glob).toMatchObject({ name: 'RegexProgramError', code: 'unsupported_syntax', message: expect.stringContaining('the name itself') });
    }
    expect(matches('\\{1..3\\}', '{1..3}')).toBe(true);
    expect(matches('\\{1..3\\}', '2')).toBe(false);
  });
});

describe('a glob picomatch reads as no regular expression', () => {
  it('is refused, typed, where picomatch answered one that matches nothing (a deny of it loaded and denied nothing)', () => {
    for (const glob of ['**/*.{pem,key', 'id_rsa{,.pub', '.env\\', '{a,{b,c}1..3}', 'keys/{{a,b}1..3}', ']a!(']) {
      expect(refusal(glob), glob).toMatchObject({ name: 'RegexProgramError', code: 'unsupported_syntax' });
    }
  });
});
