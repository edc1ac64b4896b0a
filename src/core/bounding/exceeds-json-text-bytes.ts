const encoder = new TextEncoder();
let scratch = new Uint8Array(0);

/**
 * Whether a JSON value's text passes `limit` bytes: each string and key in
 * UTF-8 with its quotes, each number as it is written, each other mark a
 * few bytes. Escapes are not counted, which makes a text of quotes or
 * control characters count less than its JSON (at most six times less, and
 * at most twice for text already stripped of controls). The count stops at
 * the limit, and a string is measured by the platform's encoder, never
 * character by character: a value as large as the limit costs a few
 * microseconds (measuring its JSON exactly, escapes included, costs a
 * hundred times that for prose, per 64 KiB).
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
    if (typeof node === 'number') return take(String(node), 0);
    if (typeof node !== 'object' || node === null) return take('', 5);
    if (Array.isArray(node)) return take('', 2 + node.length) && node.every(fits);
    for (const key of Object.keys(node)) if (!take(key, 4) || !fits((node as Record<string, unknown>)[key])) return false;
    return take('', 2);
  };
  return fits(value) ? limit - left : undefined;
}
