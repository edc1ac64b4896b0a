/**
 * A JSON Pointer (RFC 6901) into a tool's arguments, parsed once when the
 * server is configured: `/a/b~1c` names member `b/c` of member `a`.
 */
export type JsonPointer = readonly string[];

/** `~` followed by anything but `0` or `1` is not a pointer: it is refused, never guessed. */
const POINTER = /^(?:\/(?:[^~/]|~[01])*)+$/;

/**
 * Parse a pointer into its reference tokens, or undefined when it is not one.
 * The empty pointer (the whole document) is refused too: the arguments object
 * is never a path, a URL or a command.
 */
export function parseJsonPointer(text: unknown): JsonPointer | undefined {
  if (typeof text !== 'string' || !POINTER.test(text)) return undefined;
  return Object.freeze(text.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~')));
}

export type PointerValue = { readonly found: false } | { readonly found: true; readonly value: unknown };

const MISSING: PointerValue = Object.freeze({ found: false });
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * The value a pointer names. Only own members count: `/__proto__` or
 * `/constructor` name what the arguments hold under that key, never what an
 * object inherits. An array is indexed by a canonical decimal index (`01`,
 * `-` and out-of-range indexes name nothing); a string or number has no
 * members. `beforeStep` sees each node the pointer reads a member of, with
 * that member's token, and may throw to refuse the reading.
 */
export function evaluateJsonPointer(document: unknown, pointer: JsonPointer, beforeStep?: (node: unknown, token: string) => void): PointerValue {
  let node = document;
  for (const token of pointer) {
    beforeStep?.(node, token);
    if (Array.isArray(node)) {
      if (!ARRAY_INDEX.test(token)) return MISSING;
      const index = Number(token);
      if (index >= node.length) return MISSING;
      node = node[index] as unknown;
    } else if (typeof node === 'object' && node !== null) {
      if (!Object.hasOwn(node, token)) return MISSING;
      node = (node as Record<string, unknown>)[token];
    } else {
      return MISSING;
    }
  }
  return { found: true, value: node };
}
