import { starMatcher } from './star-matcher.js';

/**
 * Match an argv against a pattern of elements. A pattern element matches
 * one argv element byte for byte, except that `*` inside an element matches
 * any run of characters within that element, and a final element that is
 * exactly `*` matches all remaining elements (zero or more). Elements never
 * merge: `git status` can never match the single element `git status`.
 *
 * A pattern made by `exactArgvPattern` has no wildcard at all: it matches
 * the argv of the same length whose every element is equal, `*` included.
 */
export function matchArgvPattern(pattern: readonly string[], argv: readonly string[]): boolean {
  if (exact.has(pattern)) return pattern.length === argv.length && pattern.every((element, index) => element === argv[index]);
  const last = pattern.length - 1;
  const rest = pattern[last] === '*';
  const fixed = rest ? last : pattern.length;
  if (rest ? argv.length < fixed : argv.length !== fixed) return false;
  for (let index = 0; index < fixed; index += 1) {
    if (!matchElement(pattern[index] as string, argv[index] as string)) return false;
  }
  return true;
}

/**
 * The patterns `exactArgvPattern` made. The mark is the array's identity,
 * not a byte inside an element, so no text a rule or an allowlist holds can
 * spell it, and every pattern written before it keeps its meaning.
 */
const exact = new WeakSet<readonly string[]>();

/**
 * A frozen pattern matching exactly this argv: `*` in it is a literal
 * asterisk (the rule form `{ argv, exact: true }`). A copy of it is an
 * ordinary glob pattern again, so pass the returned array itself.
 */
export function exactArgvPattern(argv: readonly string[]): readonly string[] {
  const pattern = Object.freeze([...argv]);
  exact.add(pattern);
  return pattern;
}

const compiled = new Map<string, (value: string) => boolean>();

/**
 * One element against its pattern, in time proportional to the value: a
 * project's `.toolgate/policy.json` is loaded untrusted for its deny and ask
 * rules, and run as `[\s\S]*` by backtracking, `*a*a*a*a*a*a*X` held the
 * gateway's thread for a model's argument of a few thousand `a`s.
 */
function matchElement(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  let matcher = compiled.get(pattern);
  if (matcher === undefined) {
    matcher = starMatcher(pattern.split('*'));
    if (compiled.size > 4096) compiled.clear();
    compiled.set(pattern, matcher);
  }
  return matcher(value);
}
