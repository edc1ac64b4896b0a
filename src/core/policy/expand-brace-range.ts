import { RegexProgramError } from './regex-program-error.js';

/** The most values one range in braces may stand for. */
export const MAX_BRACE_RANGE_VALUES = 1_000;

/**
 * The most values the stepped ranges of one glob (`{0..20..5}`) stand for
 * together. A range of step 1 is read as a few digit classes whatever its
 * length (`{1..1000}`: a digit 1 to 9, then up to two more, or 1000); a
 * stepped one only as each of its values, a state or more apiece. Counted per
 * glob, not per range: 7,000 ranges of 999 values in one 56 KB glob took 21 s
 * and 2.2 GB to refuse, and 1,000 rules of one 1,000-value range took 11 s
 * and 840 MB to load, each rule a few bytes of an imported settings file.
 */
export const MAX_STEPPED_RANGE_VALUES = 100;

const INTEGER = /^-?\d+$/;
const LETTER = /^[A-Za-z]$/;
/** Written with a leading zero (`01`, `-05`): every value is padded to the width of the wider end. */
const ZERO_PADDED = /^-?0\d/;
/** What a shell reads as a range: two whole numbers or two letters, and an optional whole step. */
const SHELL_RANGE = /^(?:-?\d+\.\.-?\d+|[A-Za-z]\.\.[A-Za-z])(?:\.\.-?\d+)?$/;
/** Two dots, either escaped: picomatch drops the backslash before a dot, and reads a brace holding them as a range. */
const TWO_DOTS = /\\?\.\\?\./;

/**
 * picomatch's `expandRange` for one glob: a range in braces as a shell
 * expands it. `{1..12}` is 1 to 12, `{01..20}` is 01 to 20 with their zeros,
 * `{0..20..5}` steps by 5, `{a..f}` is the letters between; either end may
 * come first. picomatch, left to itself, reads `{1..12}` as the class
 * `[1-12]`: a 1 or a 2, so a deny of `Read(secrets/key{1..12}.pem)` did not
 * deny `secrets/key7.pem`. What a shell would not read as a range (`{a..}`,
 * `{x1..x9}`, a step of 0, and `{1\..3}`, `{1..3..}` or `{..1..3}`, which
 * picomatch alone reads as 1 to 3 where a shell reads the name itself), a
 * range of more than `MAX_BRACE_RANGE_VALUES` values, and stepped ranges of
 * more than `MAX_STEPPED_RANGE_VALUES` together are refused
 * (`RegexProgramError`): a rule is never loaded to mean other than it says.
 */
export function braceRangeReader(glob: string): (...args: readonly unknown[]) => string {
  for (const body of innermostBraces(glob)) {
    if (TWO_DOTS.test(body) && !SHELL_RANGE.test(body)) refuse([body], 'a shell reads it as the name itself');
  }
  const budget = { stepped: 0 };
  // picomatch passes the parts between the dots, then its options.
  return (...args) => readRange(args.slice(0, -1).map(String), budget);
}

/** The first value a range's ends stand for, as a shell spells it (`{1..010}`: `001`); undefined if it is no range. */
export function firstRangeValue(from: string, to: string): string | undefined {
  if (INTEGER.test(from) && INTEGER.test(to) && Number.isSafeInteger(Number(from))) return spellNumber(Number(from), padWidth(from, to));
  return LETTER.test(from) && LETTER.test(to) ? from : undefined;
}

function readRange(parts: readonly string[], budget: { stepped: number }): string {
  const [from, to, stepText] = parts;
  if (from === undefined || to === undefined || parts.length > 3) return refuse(parts, 'a range is {from..to} or {from..to..step}');
  const step = stepText === undefined ? 1 : INTEGER.test(stepText) ? Math.abs(Number(stepText)) : 0;
  if (!Number.isSafeInteger(step) || step === 0) return refuse(parts, 'its step must be a whole number other than 0');
  let low: number;
  let high: number;
  let spell: (value: number) => string;
  if (INTEGER.test(from) && INTEGER.test(to)) {
    [low, high] = [Number(from), Number(to)];
    const width = padWidth(from, to);
    spell = (value) => spellNumber(value, width);
    if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high)) return refuse(parts, 'its ends are too large');
    if (step === 1) {
      countOf(parts, low, high, 1);
      return `(?:${numberRange(Math.min(low, high), Math.max(low, high), width).join('|')})`;
    }
  } else if (LETTER.test(from) && LETTER.test(to)) {
    [low, high] = [from.charCodeAt(0), to.charCodeAt(0)];
    spell = (code) => String.fromCharCode(code);
    // Every character between two letters, the signs between Z and a included, as one class.
    if (step === 1) return `[${String.fromCharCode(Math.min(low, high))}-${String.fromCharCode(Math.max(low, high))}]`;
  } else return refuse(parts, 'its ends must be two whole numbers or two letters');
  const count = countOf(parts, low, high, step);
  budget.stepped += count;
  if (budget.stepped > MAX_STEPPED_RANGE_VALUES) {
    throw new RegexProgramError('too_large', `the stepped ranges of the glob stand for more than ${MAX_STEPPED_RANGE_VALUES.toLocaleString('en-US')} values, each one read on its own (the range {${parts.join('..')}} stands for ${count.toLocaleString('en-US')})`);
  }
  const direction = high >= low ? step : -step;
  const values: string[] = [];
  for (let index = 0, value = low; index < count; index += 1, value += direction) values.push(spell(value).replace(/[^A-Za-z0-9]/g, '\\$&'));
  return `(?:${values.join('|')})`;
}

/** How many values a range stands for; refused past `MAX_BRACE_RANGE_VALUES`. */
function countOf(parts: readonly string[], from: number, to: number, step: number): number {
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > MAX_BRACE_RANGE_VALUES) throw new RegexProgramError('too_large', `the range {${parts.join('..')}} stands for ${count.toLocaleString('en-US')} values, more than ${MAX_BRACE_RANGE_VALUES.toLocaleString('en-US')}`);
  return count;
}

/** The width bash pads every value to: the wider end's, when an end is written with a leading zero; else none. */
function padWidth(from: string, to: string): number {
  return ZERO_PADDED.test(from) || ZERO_PADDED.test(to) ? Math.max(from.length, to.length) : 0;
}

/** A value as bash spells it in a range padded to `width`: `-05` and `003` in `{-05..5}`. */
function spellNumber(value: number, width: number): string {
  return value < 0 ? `-${String(-value).padStart(width - 1, '0')}` : String(value).padStart(width, '0');
}

/**
 * The alternatives that match exactly the spellings of `low` to `high`, each
 * padded to `width`: a negative value is `-` and its magnitude padded to one
 * less, a value wider than `width` is written whole. Built from digit
 * classes, a few for each digit of the ends, never one for each value.
 */
function numberRange(low: number, high: number, width: number): string[] {
  const alternatives: string[] = [];
  if (low < 0) alternatives.push(...magnitudes(Math.max(1, -high), -low, Math.max(width - 1, 0)).map((each) => `\\-${each}`));
  if (high >= 0) alternatives.push(...magnitudes(Math.max(0, low), high, width));
  return alternatives;
}

/** The spellings of the whole numbers `low` to `high` (0 ≤ low ≤ high), padded to `width`: one run of equal length at a time. */
function magnitudes(low: number, high: number, width: number): string[] {
  const alternatives: string[] = [];
  for (let length = Math.max(String(low).length, width); length <= Math.max(String(high).length, width); length += 1) {
    // The values spelled with `length` digits: all those up to the padding's width, then those of that many digits.
    const first = length === width || length === 1 ? low : Math.max(low, 10 ** (length - 1));
    const last = Math.min(high, 10 ** length - 1);
    if (first <= last) alternatives.push(...sameLength(String(first).padStart(length, '0'), String(last).padStart(length, '0')));
  }
  return alternatives;
}

/** Every digit string from `low` to `high`, two strings of one length, as digit classes. */
function sameLength(low: string, high: string): string[] {
  if (low === high) return [low];
  if (low[0] === high[0]) return sameLength(low.slice(1), high.slice(1)).map((rest) => `${low[0] as string}${rest}`);
  const rest = low.length - 1;
  const [lowDigit, highDigit] = [Number(low[0]), Number(high[0])];
  // The first digit at its low end (unless the rest may be anything), the digits strictly between with any rest, the high end.
  const lowWhole = /^0*$/.test(low.slice(1));
  const highWhole = /^9*$/.test(high.slice(1));
  const alternatives = lowWhole ? [] : sameLength(low.slice(1), '9'.repeat(rest)).map((tail) => `${lowDigit}${tail}`);
  const [middleLow, middleHigh] = [lowWhole ? lowDigit : lowDigit + 1, highWhole ? highDigit : highDigit - 1];
  if (middleLow <= middleHigh) alternatives.push(`${middleLow === middleHigh ? String(middleLow) : `[${middleLow}-${middleHigh}]`}${'[0-9]'.repeat(rest)}`);
  if (!highWhole) alternatives.push(...sameLength('0'.repeat(rest), high.slice(1)).map((tail) => `${highDigit}${tail}`));
  return alternatives;
}

/** What each brace that holds no other brace holds, in one pass (a pattern match over every `{` would be quadratic). */
function innermostBraces(glob: string): string[] {
  const bodies: string[] = [];
  let open = -1;
  for (let index = 0; index < glob.length; index += 1) {
    // An escaped brace is a character of a name (`\{1..3\}`), as picomatch and a shell read it.
    if (glob[index] === '\\') index += 1;
    else if (glob[index] === '{') open = index;
    else if (glob[index] === '}' && open >= 0) {
      bodies.push(glob.slice(open + 1, index));
      open = -1;
    }
  }
  return bodies;
}

function refuse(parts: readonly string[], why: string): never {
  throw new RegexProgramError('unsupported_syntax', `{${parts.join('..')}} is not a range: ${why}`);
}
