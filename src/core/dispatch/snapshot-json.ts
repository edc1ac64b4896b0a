/**
 * Copy a JSON value in one walk, so the caller cannot change the arguments
 * after policy has seen them — or, `inPlace`, only check it (a value that is
 * ours already, or one the validator will rebuild anyway). Either way it
 * refuses what JSON cannot hold and computes an upper
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
  /** Check only, returning the value itself. */
  readonly inPlace: boolean;
}

export function snapshotJson(value: unknown, options: { readonly inPlace?: boolean } = {}): JsonSnapshot {
  const walk: Walk = { size: 0, problem: undefined, ancestors: [], inPlace: options.inPlace === true };
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
      walk.size += 24;
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
  if (walk.inPlace) {
    for (let index = 0; index < length; index += 1) copyNode(node[index], depth + 1, walk);
    walk.size += length + 2;
    return node;
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
  if (walk.inPlace) {
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string;
      walk.size += key.length * 6 + 4;
      copyNode((node as Record<string, unknown>)[key], depth + 1, walk);
    }
    walk.size += 2;
    return node;
  }
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
