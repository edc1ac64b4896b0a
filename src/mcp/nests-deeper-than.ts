/**
 * The deepest an upstream's definition or result may nest, as JSON levels
 * (the value itself is level 1). JSON.parse reads a message nested a million
 * levels deep, while JSON.stringify, the pin digest, the hidden-character
 * scan and the schema walks recurse and overflow the stack a few thousand
 * levels down. The pipeline refuses a schema or a value nested deeper than
 * 64 levels anyway (`SCHEMA_SIZE_LIMITS`, `MAX_JSON_DEPTH`).
 */
export const MAX_UPSTREAM_DEPTH = 64;

/**
 * Whether `value` nests objects or arrays deeper than `maxDepth` levels.
 * Iterative, so a value of any depth is judged without a stack of its own;
 * it stops at the first level past the bound, so a deep value costs no more
 * than its first `maxDepth` levels and their siblings.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > maxDepth) return true;
    if (Array.isArray(node)) {
      for (const child of node) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    } else {
      for (const key in node) {
        const child = (node as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
      }
    }
  }
  return false;
}
