import { exceedsJsonTextBytes } from '../core/internal.js';
import { clipWhole } from '../core/policy/clip-whole.js';

/** The mark a cut string ends with: the text content beside it carries the result as the pipeline bounded it. */
export const STRUCTURED_CUT_MARK = ' … [cut: the structured result exceeds the output limit; the text content has the bounded result]';

/** Below this many characters a string is left whole: a value made of many short strings is not cut to nothing. */
const SHORTEST_CUT = 256;

/** A structured value as it may be sent, and its JSON text when that was built (or given) on the way. */
export interface BoundedStructuredContent {
  readonly value: Record<string, unknown>;
  readonly json: string | undefined;
}

/**
 * A tool's structured value as the gateway may send it to its client:
 * whole when its JSON text is within `maxBytes`; otherwise with its longest
 * strings cut, each ending in `STRUCTURED_CUT_MARK`, until it is; undefined
 * when even that does not bring it under (a value of many short strings or
 * numbers). The text content beside it was bounded by the pipeline; without
 * this, a built-in's structured value (a 2 MB file `read_file` read, a
 * command's output) reached the client whole, past every content limit. A
 * cut string stays a string, so the value keeps the shape its output schema
 * declares. `valueJson` is the value's JSON text as the call rendered it
 * (`renderedValueJson`): where it is given, it is the value sent, measured
 * and cut instead of the object, which another call or the tool itself may
 * have changed since.
 */
export function boundStructuredContent(value: Record<string, unknown>, maxBytes: number, valueJson?: string): BoundedStructuredContent | undefined {
  if (valueJson === undefined) {
    // Unescaped text within a sixth of the limit is within it as JSON (an escape takes at most six bytes a character); past that, measured as sent.
    if (!exceedsJsonTextBytes(value, Math.floor(maxBytes / 6))) return { value, json: undefined };
    const json = JSON.stringify(value);
    if (Buffer.byteLength(json) <= maxBytes) return { value, json };
  } else if (Buffer.byteLength(valueJson) <= maxBytes) {
    // The text is what is sent, so it is what is measured: the object may have changed since the call rendered it.
    return { value, json: valueJson };
  }
  const settled = valueJson === undefined ? value : (JSON.parse(valueJson) as Record<string, unknown>);
  const lengths = stringLengths(settled).sort((left, right) => right - left);
  // The longest strings cut to one length; shorter by a quarter while keys, escapes and wide characters still leave it over.
  for (let keep = keepLengthFor(lengths, maxBytes); keep >= SHORTEST_CUT; keep = Math.floor((keep * 3) / 4)) {
    const cut = cutStrings(settled, keep) as Record<string, unknown>;
    const cutJson = JSON.stringify(cut);
    if (Buffer.byteLength(cutJson) <= maxBytes) return { value: cut, json: cutJson };
  }
  return undefined;
}

/**
 * The JSON text of each served result's structured value, by the result
 * (made for one call, never shared): the writer of a stdio response sends
 * that text (`structuredJsonOf`) instead of building it a second time,
 * which for a 64 KiB result costs as much as measuring it did.
 */
const structuredJson = new WeakMap<object, string>();

/** Keep the JSON text of `result.structuredContent` with the result. */
export function keepStructuredJson(result: object, json: string): void {
  structuredJson.set(result, json);
}

/** The JSON text of `result.structuredContent`, when it was kept with that very result. */
export function structuredJsonOf(result: object): string | undefined {
  return structuredJson.get(result);
}

/**
 * The length every string may keep so that the characters left fit the
 * limit, cutting only the longest (a first guess in characters, which the
 * check after it corrects): with the strings in descending order, the first
 * `index + 1` cut to `keep` and the rest whole, the first `keep` no shorter
 * than the next string is the one.
 */
function keepLengthFor(descending: readonly number[], maxBytes: number): number {
  const budget = maxBytes - STRUCTURED_CUT_MARK.length * descending.length;
  let after = descending.reduce((sum, length) => sum + length, 0);
  for (let index = 0; index < descending.length; index += 1) {
    after -= descending[index] as number;
    const keep = Math.floor((budget - after) / (index + 1));
    if (keep >= (descending[index + 1] ?? 0)) return Math.max(0, keep);
  }
  return 0;
}

function stringLengths(node: unknown, into: number[] = []): number[] {
  if (typeof node === 'string') into.push(node.length);
  else if (Array.isArray(node)) for (const item of node) stringLengths(item, into);
  else if (typeof node === 'object' && node !== null) for (const item of Object.values(node)) stringLengths(item, into);
  return into;
}

function cutStrings(node: unknown, keep: number): unknown {
  if (typeof node === 'string') return node.length > keep + STRUCTURED_CUT_MARK.length ? `${clipWhole(node, keep)}${STRUCTURED_CUT_MARK}` : node;
  if (Array.isArray(node)) return node.map((item) => cutStrings(item, keep));
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, cutStrings(item, keep)]));
}
