import { memoizeByName } from '../names/memoize-by-name.js';

/**
 * RFC 8785 (JCS) canonical JSON: object keys sorted by UTF-16 code units,
 * numbers in ECMAScript shortest form (which is what `JSON.stringify`
 * emits), strings escaped as `JSON.stringify` escapes them, no whitespace.
 * `undefined` members are dropped as JSON drops them. Non-finite numbers,
 * bigints, functions and cycles have no canonical form and throw.
 * (Checked against the reference `canonicalize` package in the tests.)
 */
export function canonicalJson(value: unknown): string {
  const ancestors: object[] = [];
  const encode = (node: unknown): string | undefined => {
    switch (typeof node) {
      case 'string':
        return quote(node);
      case 'boolean':
        return node ? 'true' : 'false';
      case 'number':
        if (!Number.isFinite(node)) throw new TypeError('A non-finite number has no canonical JSON form.');
        // For a finite number String() is the ECMAScript shortest form JSON.stringify writes (-0 included).
        return String(node);
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined;
      case 'bigint':
        throw new TypeError('A bigint has no canonical JSON form.');
    }
    if (node === null) return 'null';
    if (typeof node !== 'object') return undefined;
    const withJson = node as { toJSON?: () => unknown };
    if (typeof withJson.toJSON === 'function') return encode(withJson.toJSON());
    if (ancestors.includes(node)) throw new TypeError('A cyclic value has no canonical JSON form.');
    ancestors.push(node);
    // Built by concatenation (V8 joins the pieces once, at the end), not per-level arrays and joins.
    let text: string;
    if (Array.isArray(node)) {
      text = '[';
      for (let index = 0; index < node.length; index += 1) text += `${index === 0 ? '' : ','}${encode(node[index]) ?? 'null'}`;
      text += ']';
    } else {
      text = '{';
      let first = true;
      for (const key of sortedKeys(node)) {
        const encoded = encode((node as Record<string, unknown>)[key]);
        if (encoded === undefined) continue;
        text += `${first ? '' : ','}${quoteName(key)}:${encoded}`;
        first = false;
      }
      text += '}';
    }
    ancestors.pop();
    return text;
  };
  const text = encode(value);
  if (text === undefined) throw new TypeError('The value has no JSON form.');
  return text;
}

/** Below this many keys an insertion sort orders them in a third of the time `Array.prototype.sort` takes. */
const SMALL_OBJECT = 16;

/**
 * An object's own enumerable keys in UTF-16 code-unit order, the order
 * `sort()` gives strings and JCS asks for (`<` on strings compares the same
 * code units). Arguments are mostly small objects, one sort each.
 */
function sortedKeys(node: object): string[] {
  const keys = Object.keys(node);
  if (keys.length > SMALL_OBJECT) return keys.sort();
  for (let index = 1; index < keys.length; index += 1) {
    const key = keys[index] as string;
    let at = index - 1;
    for (; at >= 0 && (keys[at] as string) > key; at -= 1) keys[at + 1] = keys[at] as string;
    keys[at + 1] = key;
  }
  return keys;
}

/** What JSON.stringify escapes: a quote, a backslash, a control character; and any surrogate, so a lone one is escaped as it would be. */
// eslint-disable-next-line no-control-regex -- the control characters are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A JSON string literal, as JSON.stringify writes it; a plain string skips the call into the serializer. */
function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** A member name as a JSON string literal: the names of a tool's arguments recur, so each is quoted once. */
const quoteName = memoizeByName(quote);
