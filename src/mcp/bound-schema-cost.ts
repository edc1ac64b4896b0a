import { checkSchemaSize, schemaCheckCost, type JsonSchema } from '../core/internal.js';

/**
 * The largest untrusted schema toolgate compiles, in objects, arrays and booleans.
 * ajv's compilation of a schema grows faster than its size: 1,000 properties
 * take it about a second, an `anyOf` of 2,000 alternatives eight, on the
 * gateway's event loop at every start.
 */
export const MAX_CHECKED_SCHEMA_NODES = 1_000;

/**
 * The most schemas toolgate checks one node of an untrusted value against
 * (schema-check-cost.ts). A union of 300 shapes tried on each of 20,000
 * items held the event loop 6 s; definitions that each offer two ways down
 * doubled the checks at every level of a value 22 arrays deep, 12 s.
 */
export const MAX_CHECKS_PER_NODE = 64;

/**
 * The most objects, arrays and booleans of one upstream's schemas toolgate compiles
 * for one listing, all its tools together. Each schema's bound holds for one
 * schema: 300 tools of 995 properties each (7 MiB, within what a listing may
 * take) cost ajv minutes at start, every session waiting, and a listing
 * renamed and sent again compiles again. Past it, each further copy asks only
 * for an object: about half a second a thousand, so about a second a listing
 * at most (5,000 held the gateway 2.5 s at each listing the upstream sent).
 */
export const MAX_LISTING_SCHEMA_NODES = 2_000;

/** What is left of `MAX_LISTING_SCHEMA_NODES` for one listing: each copy compiled takes its objects, arrays and booleans. */
export interface SchemaNodeBudget {
  nodes: number;
}

/** What toolgate checks in place of a schema past those bounds: an object, as every MCP argument set and structured value is. */
const ANY_OBJECT: JsonSchema = Object.freeze({ type: 'object' });

/**
 * Toolgate's copy of an untrusted upstream's schema (after
 * `stripSchemaRegexes`), or, when compiling it or checking a value against
 * it could hold the gateway, a schema that asks only for an object. Like a
 * dropped `pattern`, that is never stricter than the upstream, which still
 * checks its own schema; the model still reads that schema, and the pin
 * still digests it. What toolgate checks is bounded again by the value's
 * size when it validates (`MAX_VALUE_CHECKS`). With `budget`, a copy
 * that passes what is left of it asks only for an object too, and one
 * within it takes its objects, arrays and booleans from it. A schema with a reference
 * that names nothing it holds throws `UnresolvedReferenceError`: no
 * validator compiles it, a client's no more than toolgate's.
 */
export function boundSchemaCost(schema: JsonSchema, budget?: SchemaNodeBudget): JsonSchema {
  const tooDeep = checkSchemaSize(schema) !== undefined;
  const nodes = nodesOf(schema, MAX_CHECKED_SCHEMA_NODES);
  if (tooDeep || nodes > MAX_CHECKED_SCHEMA_NODES || schemaCheckCost(schema) > MAX_CHECKS_PER_NODE) return ANY_OBJECT;
  if (budget === undefined) return schema;
  if (nodes > budget.nodes) return ANY_OBJECT;
  budget.nodes -= nodes;
  return schema;
}

/**
 * How many objects, arrays and booleans `schema` holds, counting stopped
 * past `limit`. A boolean is a schema wherever an object may be (`false`
 * for a property that must be absent), and ajv compiles a check for each
 * such `false`: 995 of them in one tool's `properties` count as no object,
 * yet cost its compilation about a tenth of a second, and 300 such tools
 * were compiled at a start. Counting every boolean, data too, is safe: it
 * can only make a copy ask for an object sooner.
 */
function nodesOf(schema: JsonSchema, limit: number): number {
  const stack: unknown[] = [schema];
  let nodes = 0;
  while (stack.length > 0 && nodes <= limit) {
    const node = stack.pop();
    if (typeof node === 'boolean') nodes += 1;
    if (typeof node !== 'object' || node === null) continue;
    nodes += 1;
    for (const child of Object.values(node)) stack.push(child);
  }
  return nodes;
}
