import type { JsonSchema } from './tool-types.js';

/** Ceilings on any tool schema, bounded profile or not: every walk over a schema stays shallow and short. */
export const SCHEMA_SIZE_LIMITS = Object.freeze({ maxDepth: 64, maxNodes: 20_000 });

/**
 * A problem when `schema` is nested deeper or holds more values than
 * `SCHEMA_SIZE_LIMITS`, else undefined. Iterative, so a hostile schema (an
 * MCP upstream's) cannot overflow the stack here; passing this check keeps
 * the recursive walks after it (cloning, projection) safe.
 */
export function checkSchemaSize(schema: JsonSchema): string | undefined {
  const stack: [unknown, number][] = [[schema, 1]];
  let nodes = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    nodes += 1;
    if (nodes > SCHEMA_SIZE_LIMITS.maxNodes) return `holds more than ${SCHEMA_SIZE_LIMITS.maxNodes} values`;
    if (depth > SCHEMA_SIZE_LIMITS.maxDepth) return `is nested deeper than ${SCHEMA_SIZE_LIMITS.maxDepth} levels`;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return undefined;
}
