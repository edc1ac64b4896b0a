import { checkSchemaSize, schemaCheckCost, SCHEMA_SIZE_LIMITS, type JsonSchema } from '../core/internal.js';

/**
 * The largest untrusted schema toolgate compiles, in objects and arrays.
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

/** What toolgate checks in place of a schema past those bounds: an object, as every MCP argument set and structured value is. */
const ANY_OBJECT: JsonSchema = Object.freeze({ type: 'object' });

/**
 * Toolgate's copy of an untrusted upstream's schema (after
 * `stripSchemaRegexes`), or, when compiling it or checking a value against
 * it could hold the gateway, a schema that asks only for an object. Like a
 * dropped `pattern`, that is never stricter than the upstream, which still
 * checks its own schema; the model still reads that schema, and the pin
 * still digests it. What toolgate checks is bounded again by the value's
 * size when it validates (`MAX_VALUE_CHECKS`). A schema with a reference
 * that names nothing it holds throws `UnresolvedReferenceError`: no
 * validator compiles it, a client's no more than toolgate's.
 */
export function boundSchemaCost(schema: JsonSchema): JsonSchema {
  const tooLarge = checkSchemaSize(schema, { maxDepth: SCHEMA_SIZE_LIMITS.maxDepth, maxNodes: MAX_CHECKED_SCHEMA_NODES }) !== undefined;
  return tooLarge || schemaCheckCost(schema) > MAX_CHECKS_PER_NODE ? ANY_OBJECT : schema;
}
