import { MAX_JSON_DEPTH } from '../dispatch/snapshot-json.js';

/**
 * The UTF-8 size of a value's JSON text, measured without building the text.
 * `over` when the size passes `limit` (the walk stops there, so a large value
 * costs no more than `limit` to measure); `invalid` when the value has no
 * bounded JSON form (nesting deeper than the engine's JSON bound, a cycle).
 */
export type JsonByteSize = { readonly kind: 'fits'; readonly bytes: number } | { readonly kind: 'over' } | { readonly kind: 'invalid' };

/** The walk's running state: bytes counted so far, and the budget it may not pass. */
interface Measure {
  bytes: number;
  readonly limit: number;
}

/** Thrown inside the walk to stop it at once (made once, so a stop costs no stack capture); never escapes `measureJsonBytes`. */
const OVER = new Error('over the limit');
const INVALID = new Error('not bounded JSON');

/**
 * Mirrors `JSON.stringify` as the Code Mode bridge runs it (a bigint becomes
 * its decimal string): `toJSON` is called, members that are `undefined`, a
 * function or a symbol are left out (`null` in an array), a number that is
 * not finite is `null`, and strings are counted with their escapes. A lone
 * surrogate counts as its `\uXXXX` escape, as well-formed stringify writes it.
 */
export function measureJsonBytes(value: unknown, limit: number): JsonByteSize {
  const measure: Measure = { bytes: 0, limit };
  try {
    if (!addValue(measure, value, '', 0)) add(measure, 4); // a top-level undefined is delivered as null
  } catch (stop) {
    if (stop === OVER) return { kind: 'over' };
    if (stop === INVALID) return { kind: 'invalid' };
    throw stop;
  }
  return { kind: 'fits', bytes: measure.bytes };
}

function add(measure: Measure, bytes: number): void {
  measure.bytes += bytes;
  if (measure.bytes > measure.limit) throw OVER;
}

/** Count one value; false when JSON leaves it out (undefined, a function, a symbol). */
function addValue(measure: Measure, input: unknown, key: string, depth: number): boolean {
  let value = input;
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  // JSON unwraps boxed primitives.
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
  switch (typeof value) {
    case 'string':
      addString(measure, value);
      return true;
    case 'number':
      add(measure, Number.isFinite(value) ? String(value).length : 4);
      return true;
    case 'boolean':
      add(measure, value ? 4 : 5);
      return true;
    case 'bigint':
      add(measure, value.toString().length + 2);
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) {
    add(measure, 4);
    return true;
  }
  // A cycle never ends, so it shows up here as depth.
  if (depth >= MAX_JSON_DEPTH) throw INVALID;
  if (Array.isArray(value)) {
    const length = value.length;
    add(measure, 2 + Math.max(0, length - 1));
    for (let index = 0; index < length; index += 1) {
      if (!addValue(measure, value[index], String(index), depth + 1)) add(measure, 4);
    }
    return true;
  }
  add(measure, 2);
  let members = 0;
  for (const name of Object.keys(value)) {
    const before = measure.bytes;
    // Key, colon and (past the first member) a comma; taken back when the member is left out.
    addString(measure, name);
    add(measure, members > 0 ? 2 : 1);
    if (addValue(measure, (value as Record<string, unknown>)[name], name, depth + 1)) members += 1;
    else measure.bytes = before;
  }
  return true;
}

/** Every character that is written as itself in one UTF-8 byte: printable ASCII but `"` and `\`. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function addString(measure: Measure, text: string): void {
  // Each character is at least one byte: a string longer than what is left is over at once, unread.
  add(measure, text.length + 2);
  if (PLAIN.test(text)) return;
  let extra = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20) extra += code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 1 : 5;
    else if (code === 0x22 || code === 0x5c) extra += 1;
    else if (code < 0x80) continue;
    else if (code < 0x800) extra += 1;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && isLowSurrogate(text.charCodeAt(index + 1))) {
      extra += 2; // a pair: two units, four bytes
      index += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) extra += 5;
    else extra += 2;
    if (extra > 65_536) {
      add(measure, extra);
      extra = 0;
    }
  }
  add(measure, extra);
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
