import type { JsonSchema } from '../tools/tool-types.js';
import { defineOwn } from './define-own.js';
import { hasSchemaRefs, inlineSchemaRefs } from './inline-schema-refs.js';
import type { GeminiSchema, GeminiType } from './projection-types.js';

const TYPES: Readonly<Record<string, GeminiType>> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
  null: 'NULL',
};

// The only `format` values Gemini accepts, per type; any other is dropped.
const FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  STRING: new Set(['enum', 'date-time']),
  INTEGER: new Set(['int32', 'int64']),
  NUMBER: new Set(['float', 'double']),
};

// A recursive reference is cut to a bare object: Gemini has no references,
// and the registry's validator still enforces the full original schema.
const RECURSION_CUT = Object.freeze({ type: 'object' });

/**
 * Gemini's OpenAPI 3.0 subset. Local `$ref`s are inlined; what Gemini lacks
 * is rewritten: `const` → a one-value `enum` (strings) or equal bounds
 * (numbers); `anyOf`/`oneOf`/type arrays with `null` → `nullable`; `oneOf`
 * → `anyOf`; object `allOf` branches merged; `exclusiveMinimum`/`Maximum` →
 * inclusive bounds; non-string enums dropped. Every other unsupported keyword
 * (`additionalProperties`, `$schema`, `patternProperties`, `not`, …) is
 * dropped. The projection may therefore be looser than the tool's schema;
 * never stricter. The registry validates the arguments against the original.
 *
 * Returns `undefined` for an object with no properties: Gemini refuses an
 * empty `OBJECT` as function parameters, so such a tool omits them.
 */
export function toGeminiSchema(schema: JsonSchema): GeminiSchema | undefined {
  let source: Record<string, unknown> = schema;
  if (hasSchemaRefs(schema)) {
    const inlined = inlineSchemaRefs(schema, { onRecursion: RECURSION_CUT });
    // A remote reference or an explosion cannot be inlined: offer the object without detail.
    source = inlined.ok ? inlined.schema : { type: 'object', ...(typeof schema.description === 'string' ? { description: schema.description } : {}) };
  }
  const converted = convert(source);
  const properties = converted.properties;
  if (properties === undefined || Object.keys(properties).length === 0) return undefined;
  return converted;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

function convert(node: unknown): GeminiSchema {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return {};
  const record = mergeAllOf(node as Record<string, unknown>);
  const out: Writable<GeminiSchema> = {};
  let nullable = false;

  const types = (Array.isArray(record.type) ? record.type : record.type === undefined ? [] : [record.type]).filter((entry): entry is string => typeof entry === 'string');
  if (types.includes('null') && types.length > 1) nullable = true;
  const nonNull = types.filter((entry) => entry !== 'null');
  if (nonNull.length === 1 || (nonNull.length === 0 && types.length === 1)) {
    const mapped = TYPES[nonNull[0] ?? 'null'];
    if (mapped !== undefined) out.type = mapped;
  } else if (nonNull.length > 1) {
    // A type array without null: one branch per type.
    out.anyOf = nonNull.map((type) => convert({ ...record, type }));
  }

  const branches = Array.isArray(record.anyOf) ? record.anyOf : Array.isArray(record.oneOf) ? record.oneOf : undefined;
  if (branches !== undefined) {
    const kept = branches.filter((branch) => !isNullSchema(branch));
    if (kept.length < branches.length) nullable = true;
    if (kept.length === 1) Object.assign(out, convert(kept[0]));
    else if (kept.length > 1) out.anyOf = kept.map(convert);
  }

  copyAnnotations(record, out);
  copyConstraints(record, out);
  copyValues(record, out);

  if (record.items !== undefined && !Array.isArray(record.items)) out.items = convert(record.items);
  if (typeof record.properties === 'object' && record.properties !== null) {
    const properties: Record<string, GeminiSchema> = {};
    for (const [key, child] of Object.entries(record.properties)) defineOwn(properties, key, convert(child));
    out.properties = properties;
    if (Array.isArray(record.required)) {
      const required = record.required.filter((key): key is string => typeof key === 'string' && Object.hasOwn(properties, key));
      if (required.length > 0) out.required = required;
    }
  }
  if (out.format !== undefined && (out.type === undefined || FORMATS[out.type]?.has(out.format) !== true)) delete out.format;
  if (nullable) out.nullable = true;
  return out;
}

function isNullSchema(branch: unknown): boolean {
  return typeof branch === 'object' && branch !== null && (branch as Record<string, unknown>).type === 'null' && Object.keys(branch).length === 1;
}

/** Merge object-shaped `allOf` branches into one node; other `allOf`s are dropped (looser, never stricter). */
function mergeAllOf(record: Record<string, unknown>): Record<string, unknown> {
  const allOf = record.allOf;
  if (!Array.isArray(allOf)) return record;
  const { allOf: _allOf, ...rest } = record;
  const merged: Record<string, unknown> = { ...rest };
  const properties: Record<string, unknown> = { ...((rest.properties as Record<string, unknown> | undefined) ?? {}) };
  const required = new Set<unknown>(Array.isArray(rest.required) ? rest.required : []);
  for (const branch of allOf) {
    if (typeof branch !== 'object' || branch === null) continue;
    const part = mergeAllOf(branch as Record<string, unknown>);
    if (typeof part.properties !== 'object' || part.properties === null) continue;
    for (const [key, child] of Object.entries(part.properties)) defineOwn(properties, key, child);
    if (Array.isArray(part.required)) for (const key of part.required) required.add(key);
    merged.type ??= 'object';
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

function copyAnnotations(record: Record<string, unknown>, out: Writable<GeminiSchema>): void {
  if (typeof record.title === 'string') out.title = record.title;
  if (typeof record.description === 'string') out.description = record.description;
  if (typeof record.format === 'string') out.format = record.format;
  if (typeof record.pattern === 'string') out.pattern = record.pattern;
  if (record.default !== undefined) out.default = record.default;
  if (Array.isArray(record.examples) && record.examples.length > 0) out.example = record.examples[0];
}

function copyConstraints(record: Record<string, unknown>, out: Writable<GeminiSchema>): void {
  const minimum = numberOr(record.minimum, record.exclusiveMinimum);
  const maximum = numberOr(record.maximum, record.exclusiveMaximum);
  if (minimum !== undefined) out.minimum = minimum;
  if (maximum !== undefined) out.maximum = maximum;
  // int64 fields: Gemini's JSON mapping writes them as strings.
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
    const value = record[key];
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) out[key] = String(value);
  }
}

function numberOr(inclusive: unknown, exclusive: unknown): number | undefined {
  if (typeof inclusive === 'number') return inclusive;
  return typeof exclusive === 'number' ? exclusive : undefined;
}

/** `enum` and `const`: Gemini enumerates strings only. */
function copyValues(record: Record<string, unknown>, out: Writable<GeminiSchema>): void {
  const values = 'const' in record ? [record.const] : Array.isArray(record.enum) ? record.enum : undefined;
  if (values === undefined) return;
  const nonNull = values.filter((value) => value !== null);
  if (nonNull.length < values.length) out.nullable = true;
  if (nonNull.length > 0 && nonNull.every((value) => typeof value === 'string')) {
    out.type = 'STRING';
    out.enum = nonNull;
    out.format = 'enum';
    return;
  }
  if (nonNull.length > 0 && nonNull.every((value) => typeof value === 'number')) {
    // Gemini enumerates no numbers: keep the type, and pin a single value with equal bounds.
    out.type ??= nonNull.every((value) => Number.isInteger(value)) ? 'INTEGER' : 'NUMBER';
    const [only, ...more] = nonNull;
    if (only !== undefined && more.length === 0) {
      out.minimum = only;
      out.maximum = only;
    }
    return;
  }
  if (nonNull.length > 0 && nonNull.every((value) => typeof value === 'boolean')) out.type = 'BOOLEAN';
}
