import { structuredJsonOf } from './bound-structured-content.js';

/** A member's JSON at least this long is a part of its own; shorter texts are joined to their neighbours. */
const OWN_PART_FROM = 8 * 1024;

/** How many object levels are written member by member: a response, then its result. */
const SPLIT_DEPTH = 2;

interface Line {
  readonly parts: string[];
  tail: string;
}

/**
 * A message as `JSON.stringify(message) + '\n'` would write it, character
 * for character, in parts that concatenate to that line. The message and
 * its result are written member by member, so a long member (a result's
 * content or its structured value) is a string of its own. V8 stores a
 * string in one byte per character until it holds a character past U+00FF;
 * one such character in the content (a truncation marker's dash) would
 * otherwise widen the whole line, structured value included, to two bytes
 * per character, and make every later step over it (flattening, encoding
 * to UTF-8) slower. A value that `JSON.stringify` would treat in a way this
 * splitting cannot repeat (`toJSON`, a class instance) makes the line one
 * part, written by `JSON.stringify` itself.
 */
export function jsonLineParts(message: unknown): string[] {
  const line: Line = { parts: [], tail: '' };
  if (!appendValue(line, message, SPLIT_DEPTH)) return [`${JSON.stringify(message)}\n`];
  append(line, '\n');
  line.parts.push(line.tail);
  return line.parts;
}

function appendValue(line: Line, value: unknown, depth: number): boolean {
  if (depth === 0 || !isPlainObject(value)) {
    append(line, JSON.stringify(value));
    return true;
  }
  let separator = '';
  append(line, '{');
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    // `toJSON` is called with the member's key; a member written on its own would pass it an empty one.
    if (hasToJson(member)) return false;
    append(line, `${separator}${JSON.stringify(key)}:`);
    separator = ',';
    // A served result's structured value is written as it was measured when it was bounded, for this very result.
    const measured = key === 'structuredContent' ? structuredJsonOf(value) : undefined;
    if (measured !== undefined) append(line, measured);
    else if (!appendValue(line, member, depth - 1)) return false;
  }
  append(line, '}');
  return true;
}

function append(line: Line, text: string): void {
  if (text.length < OWN_PART_FROM) {
    line.tail += text;
    return;
  }
  if (line.tail !== '') line.parts.push(line.tail);
  line.parts.push(text);
  line.tail = '';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || hasToJson(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function hasToJson(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
