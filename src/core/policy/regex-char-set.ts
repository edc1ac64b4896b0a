/**
 * A character class of a regular expression (`[^/]`, `[a-z]`, `\d`, `.`)
 * as the matcher of one UTF-16 code unit, read as JavaScript reads it
 * without the `u` flag: with `i`, a unit matches when any unit of the same
 * canonical case (the spec's Canonicalize: its single-unit upper case, never
 * a non-ASCII unit's ASCII one) is a member.
 */
export interface RegexCharSet {
  /** Sorted, disjoint inclusive ranges of code units, before `negate` and case folding. */
  readonly ranges: readonly number[];
  readonly negate: boolean;
}

/** Whether code unit `unit` matches a set; `ascii[unit]` holds the answers for ASCII, computed once. */
export type UnitTest = ((unit: number) => boolean) & { readonly ascii: Uint8Array };

/** Sets already made, by their ranges and flags: a list of globs repeats the same few (`[^/]`, `\/`, `.`). */
const made = new Map<string, UnitTest>();

export function regexCharSetTest(set: RegexCharSet, nocase: boolean): UnitTest {
  const key = `${nocase ? 'i' : ''}${set.negate ? '^' : ''}${set.ranges.join(',')}`;
  let test = made.get(key);
  if (test === undefined) {
    if (made.size >= 4096) made.clear();
    test = makeTest(set, nocase);
    made.set(key, test);
  }
  return test;
}

function makeTest(set: RegexCharSet, nocase: boolean): UnitTest {
  const member = (unit: number): boolean => inRanges(set.ranges, unit);
  const folded = (unit: number): boolean => {
    if (!nocase) return member(unit);
    for (const equivalent of caseEquivalents(unit)) if (member(equivalent)) return true;
    return false;
  };
  const ascii = new Uint8Array(128);
  for (let unit = 0; unit < 128; unit += 1) ascii[unit] = folded(unit) !== set.negate ? 1 : 0;
  return Object.assign((unit: number) => (unit < 128 ? ascii[unit] === 1 : folded(unit) !== set.negate), { ascii });
}

function inRanges(ranges: readonly number[], unit: number): boolean {
  for (let index = 0; index < ranges.length; index += 2) {
    if (unit < (ranges[index] as number)) return false;
    if (unit <= (ranges[index + 1] as number)) return true;
  }
  return false;
}

/** Sorted, merged ranges from unordered ones. */
export function normalizeRanges(ranges: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let index = 0; index < ranges.length; index += 2) pairs.push([ranges[index] as number, ranges[index + 1] as number]);
  pairs.sort((a, b) => a[0] - b[0]);
  const merged: number[] = [];
  for (const [low, high] of pairs) {
    const last = merged.length - 1;
    if (last > 0 && low <= (merged[last] as number) + 1) merged[last] = Math.max(merged[last] as number, high);
    else merged.push(low, high);
  }
  return merged;
}

/** Every code unit not in `ranges` (sorted, merged). */
export function complementRanges(ranges: readonly number[]): number[] {
  const result: number[] = [];
  let next = 0;
  for (let index = 0; index < ranges.length; index += 2) {
    if ((ranges[index] as number) > next) result.push(next, (ranges[index] as number) - 1);
    next = (ranges[index + 1] as number) + 1;
  }
  if (next <= 0xffff) result.push(next, 0xffff);
  return result;
}

/** `\d`, `\w`, `\s` as ranges (without `u`, `\w` and `\d` are ASCII; `\s` is JavaScript's white space and line terminators). */
export const DIGIT_RANGES: readonly number[] = [0x30, 0x39];
export const WORD_RANGES: readonly number[] = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
export const SPACE_RANGES: readonly number[] = normalizeRanges([
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff,
]);
/** `.` without the `s` flag: every unit but the line terminators. */
export const NOT_LINE_TERMINATOR: readonly number[] = complementRanges(normalizeRanges([0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029]));

/** The spec's Canonicalize without `u`: a unit's upper case when that is one unit and not an ASCII one of a non-ASCII unit. */
export function canonicalUnit(unit: number): number {
  if (unit < 128) return unit >= 0x61 && unit <= 0x7a ? unit - 32 : unit;
  const upper = String.fromCharCode(unit).toUpperCase();
  if (upper.length !== 1) return unit;
  const code = upper.charCodeAt(0);
  return code < 128 ? unit : code;
}

let equivalence: Map<number, number[]> | undefined;

/** The units of `unit`'s canonical case, itself included (ASCII: itself and its other case; the rest from a table built once). */
export function caseEquivalents(unit: number): readonly number[] {
  if (unit < 128) {
    if (unit >= 0x61 && unit <= 0x7a) return [unit, unit - 32];
    if (unit >= 0x41 && unit <= 0x5a) return [unit, unit + 32];
    return [unit];
  }
  equivalence ??= buildEquivalence();
  return equivalence.get(canonicalUnit(unit)) ?? [unit];
}

function buildEquivalence(): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  for (let unit = 128; unit <= 0xffff; unit += 1) {
    const canonical = canonicalUnit(unit);
    const group = groups.get(canonical);
    if (group === undefined) groups.set(canonical, [unit]);
    else group.push(unit);
  }
  // The canonical unit belongs to its own group (it may be below 128 only for an ASCII unit, never reached here).
  for (const [canonical, group] of groups) {
    if (!group.includes(canonical)) group.push(canonical);
    if (group.length === 1) groups.delete(canonical);
  }
  return groups;
}
