const encoder = new TextEncoder();
let scratch = new Uint8Array(0);

/**
 * Whether a JSON value's text passes `limit` bytes: each string and key in
 * UTF-8 with its quotes, each number, literal and mark as it is written,
 * the members JSON leaves out left out, and what `toJSON` makes of an
 * object (a `Date`) as its JSON. Escapes are not counted, which makes a
 * text of quotes or control characters count less than its JSON (at most
 * six times less, and at most twice for text already stripped of
 * controls); a value whose strings need no escape counts exactly its JSON
 * text's bytes. The count stops at the limit, and a string is measured by
 * the platform's encoder, never character by character: a value as large
 * as the limit costs a few microseconds (measuring its JSON exactly,
 * escapes included, costs a hundred times that for prose, per 64 KiB).
 */
export function exceedsJsonTextBytes(value: unknown, limit: number): boolean {
  return jsonTextBytesWithin(value, limit) === undefined;
}

/** The bytes `exceedsJsonTextBytes` counts for a value, or undefined once they pass `limit`. */
export function jsonTextBytesWithin(value: unknown, limit: number): number | undefined {
  if (scratch.length < limit) scratch = new Uint8Array(limit);
  let left = limit;
  /** Take `text` (and `marks` bytes of punctuation around it) from what is left; false once nothing is. */
  const take = (text: string, marks: number): boolean => {
    // A UTF-16 unit is at least one byte: a string longer than what is left is over, unread.
    if (text.length + marks > left) return false;
    const { read, written } = encoder.encodeInto(text, scratch.subarray(0, left));
    left -= written + marks;
    return read === text.length && left >= 0;
  };
  const fits = (node: unknown): boolean => {
    if (typeof node === 'string') return take(node, 2);
    // A number that is not finite, and anything else with no JSON form of its own, is written as null.
    if (typeof node === 'number') return Number.isFinite(node) ? take(String(node), 0) : take('', 4);
    if (typeof node === 'boolean') return take('', node ? 4 : 5);
    if (typeof node !== 'object' || node === null) return take('', 4);
    if (typeof (node as { toJSON?: unknown }).toJSON === 'function') return take(toJsonText(node), 0);
    if (Array.isArray(node)) {
      // Its brackets and the commas between its items; a hole is written as null.
      if (!take('', node.length === 0 ? 2 : node.length + 1)) return false;
      for (let index = 0; index < node.length; index += 1) if (!fits(node[index])) return false;
      return true;
    }
    let written = 0;
    for (const key of Object.keys(node)) {
      const member = (node as Record<string, unknown>)[key];
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      // The name's quotes and colon, and the comma before every member but the first.
      if (!take(key, written === 0 ? 3 : 4) || !fits(member)) return false;
      written += 1;
    }
    return take('', 2);
  };
  return fits(value) ? limit - left : undefined;
}

/** The JSON an object with `toJSON` is written as (empty where it writes nothing, null's length where it throws). */
function toJsonText(node: object): string {
  try {
    return JSON.stringify(node) ?? '';
  } catch {
    return 'null';
  }
}
