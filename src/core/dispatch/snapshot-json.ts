/**
 * Copy and freeze a JSON value in one walk, so the caller cannot change the
 * arguments after policy has seen them. Along the way it computes an upper
 * bound of the value's canonical UTF-8 size (a character is at most 6 bytes
 * once escaped), which lets the size check skip exact measurement for
 * everything comfortably small.
 */
export type JsonSnapshot = { readonly ok: true; readonly value: unknown; readonly sizeBound: number } | { readonly ok: false; readonly problem: string };

const MAX_DEPTH = 64;

export function snapshotJson(value: unknown): JsonSnapshot {
  let size = 0;
  let problem: string | undefined;
  const ancestors: object[] = [];

  const copy = (node: unknown, depth: number): unknown => {
    switch (typeof node) {
      case 'string':
        size += node.length * 6 + 2;
        return node;
      case 'number':
        if (!Number.isFinite(node)) problem ??= 'a number is not finite';
        size += 24;
        return node;
      case 'boolean':
        size += 5;
        return node;
      case 'object':
        break;
      default:
        problem ??= `a ${typeof node} is not JSON`;
        return undefined;
    }
    if (node === null) {
      size += 4;
      return null;
    }
    if (depth > MAX_DEPTH) {
      problem ??= `nesting is deeper than ${MAX_DEPTH}`;
      return undefined;
    }
    if (ancestors.includes(node)) {
      problem ??= 'the value is cyclic';
      return undefined;
    }
    ancestors.push(node);
    let result: unknown;
    if (Array.isArray(node)) {
      const items: unknown[] = new Array<unknown>(node.length);
      for (let index = 0; index < node.length; index += 1) items[index] = copy(node[index], depth + 1);
      size += node.length + 2;
      result = Object.freeze(items);
    } else {
      const prototype: unknown = Object.getPrototypeOf(node);
      if (prototype !== Object.prototype && prototype !== null) {
        problem ??= 'an object is not a plain JSON object';
        ancestors.pop();
        return undefined;
      }
      const entries: Record<string, unknown> = {};
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        const child = (node as Record<string, unknown>)[key];
        if (child === undefined) continue; // JSON drops undefined members
        size += key.length * 6 + 4;
        const copied = copy(child, depth + 1);
        // Assignment to "__proto__" would set the prototype; it must stay data.
        if (key === '__proto__') Object.defineProperty(entries, key, { value: copied, enumerable: true, writable: true, configurable: true });
        else entries[key] = copied;
      }
      size += 2;
      result = Object.freeze(entries);
    }
    ancestors.pop();
    return result;
  };

  const copied = copy(value, 0);
  return problem === undefined ? { ok: true, value: copied, sizeBound: size } : { ok: false, problem };
}
