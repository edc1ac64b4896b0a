import { MissingRefError, type Options } from 'ajv';
import { compilerOfDraft, draftOf, type JsonSchema, type JsonSchemaDraft } from '../core/internal.js';

/**
 * Regular expressions in an untrusted upstream's schemas are never run by
 * toolgate. A `pattern` such as `^(a+)+$` backtracks exponentially: one
 * argument of 40 characters would hold the gateway's event loop for hours,
 * and every session and upstream with it. JavaScript's engine cannot bound a
 * match, so the only safe regex from an untrusted source is one never built.
 *
 * `stripSchemaRegexes` derives the schema toolgate validates with (ajv and
 * the generated direct validator) from an untrusted upstream's schema. The
 * model still reads, and the pin still digests, the upstream's own schema;
 * the upstream still validates its own arguments with its own patterns.
 * Only toolgate's copy changes, in these ways, and only in schema positions
 * (a property *named* `pattern` under `properties` is a name, and stays):
 *
 * - `pattern` is removed: the string is accepted on its other keywords.
 * - `format` is removed. toolgate asserts no format today (`validateFormats:
 *   false` and no format vocabulary, see core/tools/schema-validator.ts), so
 *   this changes nothing now; it keeps it that way should formats ever be
 *   enabled, since ajv-formats implements nearly every format with a regex.
 * - `patternProperties` is folded into `additionalProperties` (see
 *   `foldPatternProperties`): never stricter than the upstream, and as strict
 *   as possible without knowing which names a pattern matches.
 * - `uniqueItems` is removed, for the same reason as `pattern`: ajv checks it
 *   in time quadratic in the array's length, on the event loop, against
 *   arguments any model chooses and results the upstream chooses. So is an
 *   `enum` of more than 256 values, checked one after another for each item.
 *
 * A copy that would still be too large to compile, or too costly to check
 * a value against, then asks only for an object (bound-schema-cost.ts).
 *
 * Every subschema location of draft-07, 2019-09 and 2020-12 is walked. A
 * keyword the walk does not know is walked too, as a possible schema: ajv
 * ignores it unless a `$ref` points into it, and then it is a schema.
 * `const`, `enum`, `default` and `examples` are data and are copied as they
 * are. The input is never modified; the result shares no object with it.
 */
export function stripSchemaRegexes(schema: JsonSchema): JsonSchema {
  return isObject(schema) ? walkSchema(schema, 0) : structuredClone(schema);
}

/** Keywords whose value maps names to schemas (`dependencies` values may also be arrays of names). */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
/** Keywords whose value is data or a plain value, never a schema: copied as they are. */
const DATA_KEYWORDS = new Set([
  'const', 'enum', 'default', 'examples', 'required', 'dependentRequired', 'type',
  '$schema', '$id', '$anchor', '$dynamicAnchor', '$recursiveAnchor', '$ref', '$dynamicRef', '$recursiveRef', '$comment', '$vocabulary',
  'title', 'description', 'deprecated', 'readOnly', 'writeOnly', 'contentEncoding', 'contentMediaType',
  'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength',
  'maxItems', 'minItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties',
  'discriminator', 'nullable',
]);
/**
 * Keywords that make ajv build a regular expression (or would, with formats
 * on), and `uniqueItems`, which ajv checks by comparing every item with every
 * other unless all items are of one scalar type: dropped. An untrusted
 * upstream's structured value of 20,000 distinct objects under an output
 * schema asking for unique items held the event loop 14 s, and 6,000 objects
 * in one call's arguments more than a second.
 */
const DROPPED_KEYWORDS = new Set(['pattern', 'format', 'uniqueItems']);

/**
 * The longest `enum` kept. ajv checks a value against the list one entry
 * after another, so an array's check costs its length times the list's: 40,000
 * numbers under an output schema whose items must be one of 30,000 held the
 * event loop 6.5 s, and compiling that list 2 s more. A longer list is
 * dropped, as a pattern is.
 */
const MAX_ENUM_VALUES = 256;

/**
 * Deeper than the core's schema ceiling (SCHEMA_SIZE_LIMITS.maxDepth): the
 * core refuses such a schema anyway, so past it a subschema becomes `false`
 * (regex-free, and the walk cannot overflow the stack).
 */
const MAX_DEPTH = 64;

type SchemaObject = Record<string, unknown>;

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value in a schema position: an object is walked, an array element-wise, anything else (a boolean schema) is kept. */
function walkSchemaLike(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.map((item) => walkSchemaLike(item, depth + 1));
  return isObject(value) ? walkSchema(value, depth) : value;
}

function walkSchema(node: SchemaObject, depth: number): SchemaObject {
  const entries: [string, unknown][] = [];
  let patternProperties: unknown[] | undefined;
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    if (key === 'enum' && Array.isArray(value) && value.length > MAX_ENUM_VALUES) continue;
    if (key === 'patternProperties') {
      // Whatever its shape, the key itself never reaches ajv. Its schemas are kept, walked, for the fold.
      patternProperties = isObject(value) ? Object.values(value).map((item) => walkSchemaLike(item, depth + 1)) : [];
    } else if (DATA_KEYWORDS.has(key)) {
      entries.push([key, structuredClone(value)]);
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
      // Object.fromEntries defines own properties: a name such as `__proto__` stays a name.
      entries.push([key, Object.fromEntries(Object.entries(value).map(([name, item]) => [name, walkSchemaLike(item, depth + 1)]))]);
    } else {
      // A schema (additionalProperties, additionalItems, items, contains, propertyNames, not, if, then,
      // else, unevaluatedProperties, unevaluatedItems, contentSchema), an array of schemas (allOf,
      // anyOf, oneOf, prefixItems, the items of draft-07 and 2019-09), or a keyword not known: a possible schema.
      entries.push([key, walkSchemaLike(value, depth + 1)]);
    }
  }
  const result = Object.fromEntries<unknown>(entries);
  return patternProperties === undefined || patternProperties.length === 0 ? result : foldPatternProperties(result, patternProperties);
}

/**
 * Without running the patterns, toolgate cannot tell which names match
 * which. Upstream, a member whose name is not under `properties` must satisfy
 * the schema of every pattern it matches, or `additionalProperties` when it
 * matches none; either way it satisfies at least one of them. So
 * `additionalProperties: { anyOf: [...patternSchemas, additionalProperties] }`
 * accepts everything the upstream accepts and still refuses a value that fits
 * none of them (with `additionalProperties: false` and patterns that only
 * take strings, a number under an unknown name is still refused). Dropping
 * `patternProperties` alone would be the surprising choice: with
 * `additionalProperties: false` every member a pattern allowed would be
 * refused.
 *
 * Two looser points, both accepted on purpose: a member under `properties`
 * that a pattern also matches is checked against `properties` only, and when
 * `additionalProperties` was absent (or a pattern's schema is `true` or `{}`)
 * the result is `additionalProperties: true`. That `true` is not a no-op: it
 * marks every member as evaluated, as the patterns did for the members they
 * matched, so an `unevaluatedProperties` around it cannot start refusing
 * them.
 */
function foldPatternProperties(node: SchemaObject, patternSchemas: readonly unknown[]): SchemaObject {
  const additional = Object.hasOwn(node, 'additionalProperties') ? node.additionalProperties : true;
  const options = [...patternSchemas, additional];
  const acceptsAll = options.some((option) => option === true || (isObject(option) && Object.keys(option).length === 0));
  return { ...node, additionalProperties: acceptsAll ? true : { anyOf: options } };
}

/**
 * The walk covers every position ajv reads as a schema by keyword. A `$ref`
 * can point anywhere, though: into `default` or `const` data, which the walk
 * copies as it is, or to another schema the shared compiler holds. So a
 * stripped schema with references is compiled once more here, by a compiler
 * configured like the core's (same dialect choice and options) whose regex
 * engine refuses to build anything, on its own (no other schema to reach).
 * The common shape, references only to the root's own `$defs`/`definitions`
 * (or `#`) and no embedded `$id`, reaches only walked positions and skips
 * that compile.
 *
 * Returns undefined when toolgate may compile the stripped schema, or why not.
 */
export function checkRegexFree(stripped: JsonSchema): string | undefined {
  if (!needsCompileCheck(stripped)) return undefined;
  const compiler = tripwireFor(stripped);
  try {
    compiler.compile(stripped);
    return undefined;
  } catch (error) {
    if (error instanceof RegExpRefused) return 'refers ($ref) to a regular expression outside the positions toolgate strips';
    if (error instanceof MissingRefError) return 'refers ($ref) to a schema outside itself';
    // Any other failure is the core compiler's to report ("is not a valid JSON Schema").
    return undefined;
  } finally {
    compiler.removeSchema(stripped);
  }
}

// One segment, no percent-escape (a URI parser may decode `%2F` into a separator).
const LOCAL_DEFINITION = /^#(?:\/(?:\$defs|definitions)\/[^/%]+)?$/;

/** Whether a reference could reach a position the walk did not strip: conservative (data positions are scanned too). */
function needsCompileCheck(root: JsonSchema): boolean {
  const stack: [unknown, boolean][] = [[root, true]];
  while (stack.length > 0) {
    const [value, isRoot] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value)) {
      const node = value as SchemaObject;
      if (Object.hasOwn(node, '$dynamicRef') || Object.hasOwn(node, '$recursiveRef')) return true;
      if (!isRoot && Object.hasOwn(node, '$id')) return true;
      if (Object.hasOwn(node, '$ref') && !(typeof node.$ref === 'string' && LOCAL_DEFINITION.test(node.$ref))) return true;
    }
    for (const child of Object.values(value)) stack.push([child, false]);
  }
  return false;
}

class RegExpRefused extends Error {}

const refuseRegExp = Object.assign(
  (): never => {
    throw new RegExpRefused('toolgate does not run an untrusted regular expression');
  },
  { code: 'new RegExp' },
);

// The core's compiler options (core/tools/schema-validator.ts), with a regex engine that refuses.
// The meta-schema check is the core's job: it is skipped here.
const TRIPWIRE_OPTIONS: Options = {
  strict: false,
  allErrors: false,
  validateSchema: false,
  validateFormats: false,
  coerceTypes: false,
  useDefaults: false,
  code: { regExp: refuseRegExp },
};
const tripwires = new Map<JsonSchemaDraft, ReturnType<typeof compilerOfDraft>>();

/** The same draft as the core's compiler reads the schema by. */
function tripwireFor(schema: JsonSchema): ReturnType<typeof compilerOfDraft> {
  const draft = draftOf(schema);
  let tripwire = tripwires.get(draft);
  if (tripwire === undefined) {
    tripwire = compilerOfDraft(draft, TRIPWIRE_OPTIONS);
    tripwires.set(draft, tripwire);
  }
  return tripwire;
}
