import { RegexProgramError } from './regex-program-error.js';

/** The most values one range in braces may stand for: its reading is one alternative for each. */
export const MAX_BRACE_RANGE_VALUES = 1_000;

const INTEGER = /^-?\d+$/;
const LETTER = /^[A-Za-z]$/;
/** Written with a leading zero (`01`, `-05`): every value is padded to the width of the wider end. */
const ZERO_PADDED = /^-?0\d/;

/**
 * A range in braces as a shell expands it, for picomatch's `expandRange`:
 * `{1..12}` is 1 to 12, `{01..20}` is 01 to 20 with their zeros, `{0..20..5}`
 * steps by 5, `{a..f}` is the letters between; either end may come first. The
 * reading is every value as an alternative, `(?:1|2|…|12)`. picomatch, left
 * to itself, reads `{1..12}` as the class `[1-12]`: a 1 or a 2, so a deny of
 * `Read(secrets/key{1..12}.pem)` did not deny `secrets/key7.pem`. What a shell
 * would not read as a range (`{a..}`, `{x1..x9}`, a step of 0) and a range of
 * more than `MAX_BRACE_RANGE_VALUES` values are refused (`RegexProgramError`):
 * a rule is never loaded to mean less than it says.
 */
export function expandBraceRange(...args: readonly unknown[]): string {
  // picomatch passes the parts between the dots, then its options.
  const parts = args.slice(0, -1).map(String);
  const [from, to, stepText] = parts;
  if (from === undefined || to === undefined || parts.length > 3) return refuse(parts, 'a range is {from..to} or {from..to..step}');
  const step = stepText === undefined ? 1 : INTEGER.test(stepText) ? Math.abs(Number(stepText)) : 0;
  if (!Number.isSafeInteger(step) || step === 0) return refuse(parts, 'its step must be a whole number other than 0');
  if (INTEGER.test(from) && INTEGER.test(to)) {
    const width = ZERO_PADDED.test(from) || ZERO_PADDED.test(to) ? Math.max(from.length, to.length) : 0;
    const pad = (value: number): string => (value < 0 ? `-${String(-value).padStart(width - 1, '0')}` : String(value).padStart(width, '0'));
    return alternatives(parts, Number(from), Number(to), step, pad);
  }
  if (LETTER.test(from) && LETTER.test(to)) return alternatives(parts, from.charCodeAt(0), to.charCodeAt(0), step, (code) => String.fromCharCode(code));
  return refuse(parts, 'its ends must be two whole numbers or two letters');
}

function alternatives(parts: readonly string[], from: number, to: number, step: number, spell: (value: number) => string): string {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return refuse(parts, 'its ends are too large');
  const count = Math.floor(Math.abs(to - from) / step) + 1;
  if (count > MAX_BRACE_RANGE_VALUES) throw new RegexProgramError('too_large', `the range {${parts.join('..')}} stands for ${count.toLocaleString('en-US')} values, more than ${MAX_BRACE_RANGE_VALUES.toLocaleString('en-US')}`);
  const direction = to >= from ? step : -step;
  const values: string[] = [];
  for (let index = 0, value = from; index < count; index += 1, value += direction) values.push(spell(value).replace(/[^A-Za-z0-9]/g, '\\$&'));
  return `(?:${values.join('|')})`;
}

function refuse(parts: readonly string[], why: string): never {
  throw new RegexProgramError('unsupported_syntax', `{${parts.join('..')}} is not a range: ${why}`);
}
