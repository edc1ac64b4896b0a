/**
 * Copy a JSON value in one walk, so the caller cannot change the arguments
 * after policy has seen them. It refuses what JSON cannot hold and computes
 * an upper
 * bound of the value's canonical UTF-8 size (a character is at most 6 bytes
 * once escaped), which lets the size check skip exact measurement for
 * everything comfortably small.
 */
export type JsonSnapshot = { readonly ok: true; readonly value: unknown; readonly sizeBound: number } | { readonly ok: false; readonly problem: string };

const MAX_DEPTH = 64;

/** The walk's running state; one small object per snapshot instead of a closure per call. */
interface Walk {
  size: number;
  problem: string | undefined;
  readonly ancestors: object[];
}

export function snapshotJson(value: unknown): JsonSnapshot {
  const walk: Walk = { size: 0, problem: undefined, ancestors: [] };
  const copied = copyNode(value, 0, walk);
  return walk.problem === undefined ? { ok: true, value: copied, sizeBound: walk.size } : { ok: false, problem: walk.problem };
}

function copyNode(node: unknown, depth: number, walk: Walk): unknown {
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
  if (depth > MAX_DEPTH) {
    walk.problem ??= `nesting is deeper than ${MAX_DEPTH}`;
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
    if (child === undefined) continue; // JSON drops undefined members
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
 * to copy): only its depth and a number that overflowed to Infinity can be
 * wrong — it cannot be cyclic or hold anything but plain objects, arrays
 * and primitives. Computes the same size bound as `snapshotJson`.
 */
export function measureParsedJson(value: unknown): JsonSnapshot {
  const measure: { size: number; problem: string | undefined } = { size: 0, problem: undefined };
  measureNode(value, 0, measure);
  return measure.problem === undefined ? { ok: true, value, sizeBound: measure.size } : { ok: false, problem: measure.problem };
}

function measureNode(node: unknown, depth: number, measure: { size: number; problem: string | undefined }): void {
  switch (typeof node) {
    case 'string':
      measure.size += node.length * 6 + 2;
      return;
    case 'number':
      if (!Number.isFinite(node)) measure.problem ??= 'a number is not finite';
      measure.size += 25;
      return;
    case 'object':
      break;
    default:
      measure.size += 5;
      return;
  }
  if (node === null) {
    measure.size += 4;
    return;
  }
  if (depth > MAX_DEPTH) {
    measure.problem ??= `nesting is deeper than ${MAX_DEPTH}`;
    return;
  }
  if (Array.isArray(node)) {
    for (let index = 0; index < node.length; index += 1) measureNode(node[index], depth + 1, measure);
    measure.size += node.length + 2;
    return;
  }
  // Object.keys, not for-in: an enumerable property planted on Object.prototype must not count.
  const keys = Object.keys(node);
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    measure.size += key.length * 6 + 4;
    measureNode((node as Record<string, unknown>)[key], depth + 1, measure);
  }
  measure.size += 2;
}
