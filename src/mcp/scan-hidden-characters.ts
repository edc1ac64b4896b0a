/**
 * Characters that render as nothing or reorder text: a description or result
 * carrying them can show a human one thing and a model another (Trojan
 * Source, tag-character smuggling). C0/C1 controls other than tab, line feed
 * and carriage return, and every format character (general category Cf) and
 * default-ignorable code point, assigned or not: zero-width and joiner
 * characters; bidirectional embeddings, overrides, isolates and marks; the
 * word joiner and invisible operators; the byte-order mark; interlinear
 * annotation; the soft hyphen, Hangul fillers and variation selectors;
 * prepended concatenation marks (U+0600–U+0605, U+06DD, U+070F,
 * U+0890–U+0891, U+08E2, U+110BD, U+110CD); Egyptian hieroglyph, shorthand
 * and musical symbol format controls (eight of those last are enough to
 * encode hidden data, as tags are); U+FFF0–U+FFF8; the whole U+E0000–U+E0FFF
 * block (Unicode tags, the variation selectors supplement, and the unassigned
 * rest); and lone surrogate halves. Those last are not text at all, and must
 * go too: otherwise a high and a low half with a zero-width space between
 * them would join into a tag character once the space was stripped.
 */
/*
 * The list is written out rather than taken from `\p{Cf}` and
 * `\p{Default_Ignorable_Code_Point}`: the scan does not change with the
 * engine's Unicode version (a unit test compares the two), and V8 scans a
 * string that is not Latin-1 about three times faster without the `u` or `v`
 * flag those need.
 *
 * V8 tests a class of more than 16 ranges with a call rather than inline
 * branches, and walks a class up from its lowest range. Hence the
 * alternatives: the Latin-1 part; the rest of the BMP but the Arabic-script
 * marks; the astral characters as surrogate pairs; and the Arabic-script
 * marks, each half behind one range that a character outside it fails at a
 * single comparison, with a lookbehind to pick the marks out of that range.
 * V8 scans a string that is not Latin-1 (CJK, emoji, most non-English text)
 * about three times faster this way than with all the ranges in one class; a
 * Latin-1 string costs the same, since every alternative above U+00FF falls
 * away for it. Lone surrogates are found by `isWellFormed`, which is free on
 * a Latin-1 string; looking for them in the same expression would double the
 * scan of every other string.
 */
/* eslint-disable no-control-regex, no-misleading-character-class -- matching these characters is the point */
const HIDDEN_CHARACTER =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD]|[\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB]|[\uDB40-\uDB43][\uDC00-\uDFFF]|\uD804[\uDCBD\uDCCD]|\uD80D[\uDC30-\uDC3F]|\uD82F[\uDCA0-\uDCA3]|\uD834[\uDD73-\uDD7A]|[\u0600-\u061C](?<=[\u0600-\u0605\u061C])|[\u06DD-\u08E2](?<=[\u06DD\u070F\u0890\u0891\u08E2])/g;
/** The same, and lone surrogate halves: what is counted and removed once the scan found anything. */
const HIDDEN = new RegExp(`${HIDDEN_CHARACTER.source}|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]`, 'g');
/* eslint-enable no-control-regex, no-misleading-character-class */

/** Whether a string holds anything `HIDDEN` would match, at the cost of the fast expression. */
function hasHidden(text: string): boolean {
  HIDDEN_CHARACTER.lastIndex = 0;
  return HIDDEN_CHARACTER.test(text) || !text.isWellFormed();
}

export interface HiddenCharacterScan {
  /** The text, stripped when asked and anything was found; the input otherwise. */
  readonly text: string;
  readonly count: number;
  /** Distinct code points found, as `U+XXXX`, in order of first appearance (at most 16). */
  readonly codePoints: readonly string[];
}

/** Find (and optionally remove) hidden, bidirectional and control characters. One pass; no allocation when the text is clean. */
export function scanHiddenCharacters(text: string, strip: boolean): HiddenCharacterScan {
  if (!hasHidden(text)) return { text, count: 0, codePoints: [] };
  let count = 0;
  const seen = new Set<string>();
  const stripped = text.replace(HIDDEN, (match) => {
    count += 1;
    if (seen.size < 16) seen.add(`U+${(match.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`);
    return strip ? '' : match;
  });
  return { text: stripped, count, codePoints: [...seen] };
}

/** The same scan over every string (and key) of a JSON value. Nothing is allocated for a clean value; it is rebuilt only when stripping found something. */
export function scanHiddenInValue<T>(value: T, strip: boolean): { readonly value: T; readonly count: number; readonly codePoints: readonly string[] } {
  if (!containsHidden(value)) return { value, count: 0, codePoints: [] };
  let count = 0;
  const codePoints = new Set<string>();
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const scan = scanHiddenCharacters(node, strip);
      if (scan.count === 0) return node;
      count += scan.count;
      for (const point of scan.codePoints) if (codePoints.size < 16) codePoints.add(point);
      return scan.text;
    }
    if (Array.isArray(node)) return node.map(visit);
    if (typeof node === 'object' && node !== null) return Object.fromEntries(Object.entries(node).map(([key, entry]) => [visit(key), visit(entry)]));
    return node;
  };
  const visited = visit(value) as T;
  return { value: strip ? visited : value, count, codePoints: [...codePoints] };
}

function containsHidden(node: unknown): boolean {
  if (typeof node === 'string') return hasHidden(node);
  if (typeof node !== 'object' || node === null) return false;
  if (Array.isArray(node)) return node.some(containsHidden);
  for (const key in node) if (containsHidden(key) || containsHidden((node as Record<string, unknown>)[key])) return true;
  return false;
}
