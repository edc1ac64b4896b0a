import { DIGIT_RANGES, NOT_LINE_TERMINATOR, SPACE_RANGES, WORD_RANGES, complementRanges, normalizeRanges, regexCharSetTest } from './regex-char-set.js';
import { buildRegexProgram } from './build-regex-program.js';
import { RegexProgramError } from './regex-program-error.js';
import type { RegexNode, RegexProgram } from './regex-program.js';
import { requiredText } from './required-text.js';

export { RegexProgramError } from './regex-program-error.js';

type Node = RegexNode;

/**
 * Compile a regular expression's source, read as JavaScript reads it with
 * `flags` (`i`, `s`; no `u`), to an automaton with the same matches: the
 * language of picomatch's output (groups, alternation, classes, escapes,
 * greedy and lazy quantifiers, `^`, `$`, `\b` and lookaheads). Laziness and
 * captures change which match a search reports, never whether one exists,
 * which is all a test asks. Throws `RegexProgramError` for a back-reference
 * or lookbehind, or past `MAX_REGEX_STATES` states. `looks` holds the lookaheads
 * compiled so far, shared by the patterns of one list: a path's answers for
 * a lookahead they share are worked out once.
 */
export function compileRegexProgram(source: string, flags: string, looks = new Map<string, RegexProgram>()): RegexProgram {
  const nocase = flags.includes('i');
  const dotAll = flags.includes('s');
  const budget = { states: 0 };
  let index = 0;
  const fail = (what: string): never => {
    throw new RegexProgramError('unsupported_syntax', `${what} at ${index} of the expression`);
  };
  const unit = (ranges: readonly number[], negate = false): Node => ({
    t: 'unit',
    test: regexCharSetTest({ ranges, negate }, nocase),
    // One unit, which a required text may hold: with `i`, an ASCII one alone (its lower case stands for both).
    ...(!negate && ranges.length === 2 && ranges[0] === ranges[1] && (!nocase || (ranges[0] as number) < 128) ? { literal: foldAscii(ranges[0] as number, nocase) } : {}),
  });

  const parseAlternation = (): Node => {
    const items = [parseSequence()];
    while (source[index] === '|') {
      index += 1;
      items.push(parseSequence());
    }
    return items.length === 1 ? (items[0] as Node) : { t: 'alt', items };
  };
  const parseSequence = (): Node => {
    const items: Node[] = [];
    while (index < source.length && source[index] !== '|' && source[index] !== ')') items.push(parseQuantified());
    return { t: 'seq', items };
  };
  const parseQuantified = (): Node => {
    const atom = parseAtom();
    const bounds = readQuantifier();
    if (bounds === undefined) return atom;
    if (source[index] === '?') index += 1;
    return { t: 'repeat', body: atom, min: bounds[0], max: bounds[1] };
  };
  const readQuantifier = (): [number, number] | undefined => {
    const char = source[index];
    if (char === '*' || char === '+' || char === '?') {
      index += 1;
      return char === '*' ? [0, Infinity] : char === '+' ? [1, Infinity] : [0, 1];
    }
    if (char !== '{') return undefined;
    const braced = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(index));
    if (braced === null) return undefined;
    index += braced[0].length;
    const min = Number(braced[1]);
    const max = braced[2] === undefined ? min : braced[3] === '' ? Infinity : Number(braced[3]);
    if (min > 1000 || (max !== Infinity && max > 1000)) throw new RegexProgramError('too_large', 'a counted repetition of more than 1000');
    return [min, max];
  };
  const parseAtom = (): Node => {
    const char = source[index] as string;
    index += 1;
    switch (char) {
      case '(':
        return parseGroup();
      case '[':
        return parseClass();
      case '.':
        return unit(dotAll ? [0, 0xffff] : NOT_LINE_TERMINATOR);
      case '^':
        return { t: 'assert', assertion: { kind: 'start' } };
      case '$':
        return { t: 'assert', assertion: { kind: 'end' } };
      case '\\':
        return parseEscape();
      case '*':
      case '+':
      case '?':
        return fail('a quantifier with nothing to repeat');
      case '{':
        if (/^\d+(,\d*)?\}/.test(source.slice(index))) fail('a quantifier with nothing to repeat');
        return literal(char);
      default:
        return literal(char);
    }
  };
  const literal = (char: string): Node => unit([char.charCodeAt(0), char.charCodeAt(0)]);
  const parseGroup = (): Node => {
    let look: boolean | undefined;
    const from = index - 1;
    if (source[index] === '?') {
      const kind = source[index + 1];
      if (kind === ':') index += 2;
      else if (kind === '=' || kind === '!') {
        look = kind === '!';
        index += 2;
      } else fail('a lookbehind or named group');
    }
    const body = parseAlternation();
    if (source[index] !== ')') fail('an unclosed group');
    index += 1;
    if (look === undefined) return body;
    // One automaton per distinct lookahead, so a path's answers for it are worked out once however often it recurs.
    const key = `${flags}/${source.slice(from, index)}`;
    let program = looks.get(key);
    if (program === undefined) {
      program = buildRegexProgram(body, budget, { anchored: false, required: undefined });
      looks.set(key, program);
    }
    return { t: 'assert', assertion: { kind: 'look', negate: look, body: program } };
  };
  const parseEscape = (): Node => {
    const char = source[index];
    if (char === 'b' || char === 'B') {
      index += 1;
      return { t: 'assert', assertion: { kind: char === 'b' ? 'boundary' : 'not-boundary' } };
    }
    const ranges = readEscape(false);
    return typeof ranges === 'number' ? unit([ranges, ranges]) : unit(ranges);
  };
  /** The unit (a number) or the class (ranges) an escape after `\` stands for. */
  const readEscape = (inClass: boolean): number | readonly number[] => {
    const char = source[index];
    if (char === undefined) return fail('a trailing backslash');
    index += 1;
    switch (char) {
      case 'd':
        return DIGIT_RANGES;
      case 'D':
        return complementRanges(DIGIT_RANGES);
      case 'w':
        return WORD_RANGES;
      case 'W':
        return complementRanges(WORD_RANGES);
      case 's':
        return SPACE_RANGES;
      case 'S':
        return complementRanges(SPACE_RANGES);
      case 'f':
        return 0x0c;
      case 'n':
        return 0x0a;
      case 'r':
        return 0x0d;
      case 't':
        return 0x09;
      case 'v':
        return 0x0b;
      case 'b':
        return inClass ? 0x08 : fail('a word boundary');
      case 'c': {
        const letter = source[index] ?? '';
        if (!/[A-Za-z]/.test(letter)) return fail('a control escape without a letter');
        index += 1;
        return letter.charCodeAt(0) % 32;
      }
      case 'x':
      case 'u': {
        const digits = char === 'x' ? 2 : 4;
        const hex = source.slice(index, index + digits);
        if (hex.length !== digits || !/^[0-9A-Fa-f]+$/.test(hex)) return char.charCodeAt(0);
        index += digits;
        return Number.parseInt(hex, 16);
      }
      default:
        // A back-reference (or its legacy octal reading) is not regular: no glob needs one.
        if (/[0-9]/.test(char)) {
          if (char === '0' && !/[0-9]/.test(source[index] ?? '')) return 0;
          return fail('a back-reference or octal escape');
        }
        return char.charCodeAt(0);
    }
  };
  const parseClass = (): Node => {
    const negate = source[index] === '^';
    if (negate) index += 1;
    const ranges: number[] = [];
    const classAtom = (): number | readonly number[] => {
      const char = source[index] as string;
      index += 1;
      return char === '\\' ? readEscape(true) : char.charCodeAt(0);
    };
    while (source[index] !== ']') {
      if (index >= source.length) fail('an unclosed class');
      const low = classAtom();
      if (source[index] === '-' && source[index + 1] !== ']' && index + 1 < source.length) {
        index += 1;
        const high = classAtom();
        if (typeof low === 'number' && typeof high === 'number') {
          if (low > high) fail('a class range out of order');
          ranges.push(low, high);
          continue;
        }
        // Annex B: a range with a class escape at either end is both ends and a `-`.
        ranges.push(0x2d, 0x2d);
        for (const end of [low, high]) ranges.push(...(typeof end === 'number' ? [end, end] : end));
        continue;
      }
      if (typeof low === 'number') ranges.push(low, low);
      else ranges.push(...low);
    }
    index += 1;
    return unit(normalizeRanges(ranges), negate);
  };

  const tree = parseAlternation();
  if (index !== source.length) fail('an unmatched )');
  return buildRegexProgram(tree, budget, { anchored: true, required: requiredText(tree, nocase) });
}

function foldAscii(unit: number, nocase: boolean): string {
  return String.fromCharCode(nocase && unit >= 0x41 && unit <= 0x5a ? unit + 32 : unit);
}

