/**
 * Copy a JSON value in one walk, so the caller cannot change the arguments
 * after policy has seen them. It refuses what JSON cannot hold and computes
 * an upper
 * bound of the value's canonical UTF-8 size (a character is at most 6 bytes
 * once escaped), which lets the size check skip exact measurement for
 * everything comfortably small.
 */
export type JsonSnapshot = { readonly ok: true; readonly value: unknown; readonly sizeBound: number } | { readonly ok: false; readonly problem: string };

/** The deepest nesting arguments may have. */
export const MAX_JSON_DEPTH = 64;

/** The walk's running state; one small object per snapshot instead of a closure per call. */
interface Walk {
  size: number;
  problem: string | undefined;
  readonly ancestors: object[];
  /** Keep `undefined` members and items as they are, rather than drop (or, in an array, refuse) them. */
  readonly keepUndefined: boolean;
  /** The longest array the walk copies (`maxJsonItems`). */
  readonly maxItems: number;
}

/**
 * The most items an array of arguments within `maxBytes` of JSON can hold:
 * each takes a byte and a comma at least. A caller's array is walked item by
 * item, and its length costs the caller nothing (a sparse array, a proxy's
 * `length`): one of a billion items kept the dispatch busy until the
 * process ran out of memory. A longer one is refused before the walk.
 */
export function maxJsonItems(maxBytes: number): number {
  return Math.max(0, Math.floor((maxBytes - 1) / 2));
}

export function snapshotJson(value: unknown, maxItems = Number.MAX_SAFE_INTEGER): JsonSnapshot {
  const walk: Walk = { size: 0, problem: undefined, ancestors: [], keepUndefined: false, maxItems };
  const copied = copyReading(value, 0, walk);
  return walk.problem === undefined ? { ok: true, value: copied, sizeBound: walk.size } : { ok: false, problem: walk.problem };
}

/**
 * The walk, where a caller's getter or a proxy's trap may throw: that is a
 * value with no JSON form, refused as such (what it threw may quote the
 * arguments, so it is not repeated), never a rejected dispatch.
 */
function copyReading(value: unknown, depth: number, walk: Walk): unknown {
  try {
    return copyNode(value, depth, walk);
  } catch {
    walk.problem ??= 'a member could not be read';
    return undefined;
  }
}

/**
 * A caller's value, at nesting `depth`, copied for a validator that hands
 * (parts of) its input back: each member read once, into plain objects and
 * arrays, so no getter, proxy or `toJSON` can answer a later reader
 * differently. `undefined` members stay where they were, so the validator
 * meets the same keys it would have met in the original. `undefined` when
 * the value has no plain JSON form (a class instance, a function, a bigint,
 * a cycle, too deep).
 */
export function detachJson(value: unknown, depth: number, maxItems = Number.MAX_SAFE_INTEGER): { readonly value: unknown } | undefined {
  const walk: Walk = { size: 0, problem: undefined, ancestors: [], keepUndefined: true, maxItems };
  const copied = copyReading(value, depth, walk);
  return walk.problem === undefined ? { value: copied } : undefined;
}

function copyNode(node: unknown, depth: number, walk: Walk): unknown {
  if (node === undefined && walk.keepUndefined) return undefined;
  switch (typeof node) {
    case 'string':
      walk.size += node.length * 6 + 2;
      return node;
    case 'number':
      if (!Number.isFinite(node)) walk.problem ??= 'a number is not finite';
      // The longest ECMAScript number form is 25 characters (-0.0000010253239326734201).
      walk.size += 25;
      return node;
    case 'boolean':
      walk.size += 5;
      return node;
    case 'object':
      break;
    default:
      walk.problem ??= `a ${typeof node} is not JSON`;
      return undefined;
  }
  if (node === null) {
    walk.size += 4;
    return null;
  }
  if (depth > MAX_JSON_DEPTH) {
    walk.problem ??= `nesting is deeper than ${MAX_JSON_DEPTH}`;
    return undefined;
  }
  const { ancestors } = walk;
  if (ancestors.includes(node)) {
    walk.problem ??= 'the value is cyclic';
    return undefined;
  }
  ancestors.push(node);
  const result = Array.isArray(node) ? copyArray(node, depth, walk) : copyObject(node, depth, walk);
  ancestors.pop();
  return result;
}

function copyArray(node: readonly unknown[], depth: number, walk: Walk): unknown {
  const length = node.length;
  // A proxy's `length` can be anything: `new Array` of a string would hold that string, and of a
  // negative or fractional number throws, which would reject the dispatch instead of refusing the call.
  if (!Number.isSafeInteger(length) || length < 0) {
    walk.problem ??= 'an array is not a plain JSON array';
    return undefined;
  }
  if (length > walk.maxItems) {
    walk.problem ??= 'an array holds more items than the arguments may';
    return undefined;
  }
  const items: unknown[] = new Array<unknown>(length);
  for (let index = 0; index < length; index += 1) items[index] = copyNode(node[index], depth + 1, walk);
  walk.size += length + 2;
  return items;
}

function copyObject(node: object, depth: number, walk: Walk): unknown {
  const prototype: unknown = Object.getPrototypeOf(node);
  if (prototype !== Object.prototype && prototype !== null) {
    walk.problem ??= 'an object is not a plain JSON object';
    return undefined;
  }
  const keys = Object.keys(node);
  const entries: Record<string, unknown> = {};
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    const child = (node as Record<string, unknown>)[key];
    if (child === undefined && !walk.keepUndefined) continue; // JSON drops undefined members
    walk.size += key.length * 6 + 4;
    const copied = copyNode(child, depth + 1, walk);
    // Assignment to "__proto__" would set the prototype; it must stay data.
    if (key === '__proto__') Object.defineProperty(entries, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else entries[key] = copied;
  }
  walk.size += 2;
  return entries;
}

/**
 * Check, in place, a value fresh from `JSON.parse` (ours alone, so nothing
 * to copy) or a caller's value bound for a validator that rebuilds it: only
 * its depth (a cycle shows up as depth) and a number that is not finite can
 * be wrong. Computes the same size bound as `snapshotJson`.
 */
export function measureParsedJson(value: unknown): JsonSnapshot {
  const sizeBound = sizeBoundOf(value, 0);
  // NaN marks a problem; the rare failing value is walked again only to name it.
  if (sizeBound === sizeBound) return { ok: true, value, sizeBound };
  return { ok: false, problem: problemIn(value, 0) ?? 'the value is not JSON' };
}

/**
 * The walk every call with object arguments pays, so it is kept lean: one
 * number returned per node, no state object, and `for…in` rather than
 * `Object.keys` (no array per object). `for…in` also visits enumerable
 * properties inherited through a polluted prototype; they only raise the
 * bound, and a bound over the limit falls back to the exact canonical size,
 * which reads own properties alone.
 */
export function sizeBoundOf(node: unknown, depth: number): number {
  if (typeof node === 'string') return node.length * 6 + 2;
  if (typeof node !== 'object') return typeof node === 'number' ? (Number.isFinite(node) ? 25 : Number.NaN) : 5;
  if (node === null) return 4;
  if (depth > MAX_JSON_DEPTH) return Number.NaN;
  let size = 2;
  if (Array.isArray(node)) {
    const length = node.length;
    if (!Number.isSafeInteger(length) || length < 0) return Number.NaN; // a proxy's, which could be a string or -1
    size += length;
    for (let index = 0; index < length; index += 1) size += sizeBoundOf(node[index], depth + 1);
    return size;
  }
  for (const key in node) size += key.length * 6 + 4 + sizeBoundOf((node as Record<string, unknown>)[key], depth + 1);
  return size;
}

/** What made `sizeBoundOf` give up, for the error message. */
function problemIn(node: unknown, depth: number): string | undefined {
  if (typeof node === 'number') return Number.isFinite(node) ? undefined : 'a number is not finite';
  if (typeof node !== 'object' || node === null) return undefined;
  if (depth > MAX_JSON_DEPTH) return `nesting is deeper than ${MAX_JSON_DEPTH}`;
  for (const child of Object.values(node)) {
    const problem = problemIn(child, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
