import { deepFreeze } from '../tools/deep-freeze.js';
import type { JsonSchema } from '../tools/tool-types.js';
import { defineOwn } from './define-own.js';
import { hasSchemaRefs, inlineSchemaRefs } from './inline-schema-refs.js';

/**
 * Where a strict projection turned an optional property into a required,
 * nullable one: a `null` the model sends there means "absent". Mirrors the
 * object and array nesting of the schema.
 */
export interface OptionalNulls {
  /** Property names whose `null` means absent. */
  readonly keys: ReadonlySet<string>;
  readonly properties: ReadonlyMap<string, OptionalNulls>;
  readonly items: OptionalNulls | undefined;
}

export type OpenAIStrictSchema =
  | { readonly strict: true; readonly schema: JsonSchema; readonly optionalNulls: OptionalNulls | undefined }
  | { readonly strict: false; readonly schema: JsonSchema; readonly reason: string };

// Keywords strict mode rejects (OpenAI's own `toStrictJsonSchema` list). A
// schema using one keeps its meaning only in non-strict mode.
const UNSUPPORTED = new Set([
  'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'contains', 'minContains', 'maxContains', 'prefixItems',
  'patternProperties', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'dependentRequired',
  'dependentSchemas', 'dependencies', 'minProperties', 'maxProperties', 'uniqueItems', 'contentEncoding',
  'contentMediaType', 'contentSchema', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$anchor',
]);
// Annotations that mean nothing once every property is required.
const DROPPED = new Set(['$schema', '$id', 'default', 'examples']);

class NotStrict extends Error {}

/**
 * OpenAI strict mode (Structured Outputs for tools): every property is
 * required, an optional one becomes nullable, every object is closed with
 * `additionalProperties: false`, and local references are inlined.
 *
 * Some schemas cannot be made strict without changing what they accept: an
 * open record (`additionalProperties` a schema, or an object without
 * declared properties), a keyword strict mode rejects (`oneOf`, `allOf`,
 * `patternProperties`, …), an untyped node, a recursive reference, or an
 * optional property inside an `anyOf` branch (its `null` could not be told
 * apart per branch). Such a tool is offered with `strict: false` and its
 * schema as it is, and `reason` says why.
 */
export function toOpenAIStrictSchema(schema: JsonSchema): OpenAIStrictSchema {
  // Model-visible schemas are frozen once per tool version: convert each once.
  const cached = strictCache.get(schema);
  if (cached !== undefined) return cached;
  const result = deepFreeze(convertSchema(schema));
  strictCache.set(schema, result);
  return result;
}

const strictCache = new WeakMap<JsonSchema, OpenAIStrictSchema>();

function convertSchema(schema: JsonSchema): OpenAIStrictSchema {
  let source: JsonSchema = schema;
  if (hasSchemaRefs(schema)) {
    const inlined = inlineSchemaRefs(schema, { onRecursion: 'fail' });
    if (!inlined.ok) return { strict: false, schema, reason: inlined.reason };
    source = inlined.schema;
  }
  try {
    const nulls: MutableNulls = newNulls();
    const strict = convert(source, nulls, '', false);
    return { strict: true, schema: strict, optionalNulls: isEmpty(nulls) ? undefined : freezeNulls(nulls) };
  } catch (error) {
    if (error instanceof NotStrict) return { strict: false, schema, reason: error.message };
    throw error;
  }
}

interface MutableNulls {
  keys: Set<string>;
  properties: Map<string, MutableNulls>;
  items: MutableNulls | undefined;
}

function newNulls(): MutableNulls {
  return { keys: new Set(), properties: new Map(), items: undefined };
}

function isEmpty(nulls: MutableNulls): boolean {
  return nulls.keys.size === 0 && nulls.properties.size === 0 && nulls.items === undefined;
}

function freezeNulls(nulls: MutableNulls): OptionalNulls {
  const properties = new Map<string, OptionalNulls>();
  for (const [key, child] of nulls.properties) properties.set(key, freezeNulls(child));
  return Object.freeze({ keys: nulls.keys, properties, items: nulls.items === undefined ? undefined : freezeNulls(nulls.items) });
}

function convert(node: unknown, nulls: MutableNulls, pointer: string, inUnion: boolean): Record<string, unknown> {
  const at = pointer || '/';
  if (typeof node !== 'object' || node === null || Array.isArray(node)) throw new NotStrict(`${at}: a schema must be an object`);
  const record = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    // `uniqueItems: false` is the default and constrains nothing.
    if (UNSUPPORTED.has(key) && !(key === 'uniqueItems' && value === false)) throw new NotStrict(`${at}: strict mode does not support "${key}"`);
    if (key === 'uniqueItems') continue;
    if (!DROPPED.has(key)) defineOwn(out, key, value);
  }
  const type = record.type;
  const isObject = type === 'object' || (Array.isArray(type) && type.includes('object')) || record.properties !== undefined;
  if (isObject) convertObject(record, out, nulls, at, pointer, inUnion);
  if (record.items !== undefined) {
    if (typeof record.items !== 'object' || record.items === null || Array.isArray(record.items)) throw new NotStrict(`${at}: tuple "items" are not supported`);
    const itemNulls = newNulls();
    out.items = convert(record.items, itemNulls, `${pointer}/items`, inUnion);
    if (!isEmpty(itemNulls)) nulls.items = itemNulls;
  } else if (type === 'array' || (Array.isArray(type) && type.includes('array'))) {
    throw new NotStrict(`${at}: an array needs "items"`);
  }
  if (Array.isArray(record.anyOf)) {
    if (pointer === '') throw new NotStrict('/: the root must be an object, not a union');
    out.anyOf = record.anyOf.map((branch, index) => convert(branch, newNulls(), `${pointer}/anyOf/${index}`, true));
  }
  if (type === undefined && record.anyOf === undefined && record.enum === undefined && record.const === undefined) {
    throw new NotStrict(`${at}: an untyped schema accepts anything, which strict mode cannot express`);
  }
  if (record.nullable !== undefined) return openApiNullable(out, at);
  return out;
}

/**
 * OpenAPI's `nullable: true` (which ajv honours beside `type`) admits `null`.
 * Strict mode does not know the keyword: say it with a `null` type instead, so
 * the model may send the `null` the original schema accepts and dispatch keeps it.
 */
function openApiNullable(out: Record<string, unknown>, at: string): Record<string, unknown> {
  const flag = out.nullable;
  delete out.nullable;
  if (flag === false) return out;
  if (flag !== true) throw new NotStrict(`${at}: "nullable" must be a boolean`);
  const { type } = out;
  if (typeof type === 'string') return type === 'null' ? out : { ...out, type: [type, 'null'] };
  if (Array.isArray(type)) return type.includes('null') ? out : { ...out, type: [...(type as unknown[]), 'null'] };
  throw new NotStrict(`${at}: "nullable" without a "type" cannot be made strict`);
}

function convertObject(record: Record<string, unknown>, out: Record<string, unknown>, nulls: MutableNulls, at: string, pointer: string, inUnion: boolean): void {
  const properties = record.properties;
  if (record.additionalProperties !== undefined && record.additionalProperties !== false) {
    throw new NotStrict(`${at}: an open record (additionalProperties) cannot be strict`);
  }
  if (properties === undefined && record.additionalProperties !== false) {
    throw new NotStrict(`${at}: an object without declared properties is an open record`);
  }
  const declared = (properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(record.required) ? record.required : []);
  for (const name of required) {
    // Requiring an undeclared name relies on the object being open: strict mode would close it.
    if (typeof name !== 'string' || !Object.hasOwn(declared, name)) throw new NotStrict(`${at}: "required" names an undeclared property`);
  }
  const converted: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(declared)) {
    const childNulls = newNulls();
    let schema = convert(child, childNulls, `${pointer}/properties/${key}`, inUnion);
    if (!isEmpty(childNulls)) nulls.properties.set(key, childNulls);
    if (!required.has(key)) {
      if (inUnion) throw new NotStrict(`${at}: an optional property inside "anyOf" cannot be made strict`);
      if (!admitsNull(schema)) {
        schema = nullable(schema);
        nulls.keys.add(key);
      }
    }
    defineOwn(converted, key, schema);
  }
  out.properties = converted;
  out.required = Object.keys(declared);
  out.additionalProperties = false;
}

function admitsNull(schema: Record<string, unknown>): boolean {
  const { type, anyOf } = schema;
  // An enum or a const restricts the values whatever the type says.
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ('const' in schema) return schema.const === null;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  // OpenAPI `nullable: true` beside a type, which ajv honours.
  if (schema.nullable === true && type !== undefined) return true;
  return Array.isArray(anyOf) && anyOf.some((branch) => typeof branch === 'object' && branch !== null && admitsNull(branch as Record<string, unknown>));
}

/** The same schema, also accepting `null`. */
function nullable(schema: Record<string, unknown>): Record<string, unknown> {
  const { type } = schema;
  if (typeof type === 'string' && !('const' in schema)) {
    return { ...schema, type: [type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...(schema.anyOf as unknown[]), { type: 'null' }] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * Undo the strict projection's nullability on a model's arguments: a `null`
 * where the original schema had an optional, non-nullable property becomes
 * absent. Returns the same object when nothing changes.
 */
export function dropOptionalNulls(nulls: OptionalNulls, value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = nulls.items;
    if (items === undefined) return value;
    // Copy only from the first changed item: the common case (nothing to drop) allocates nothing.
    let mapped: unknown[] | undefined;
    for (let index = 0; index < value.length; index += 1) {
      const entry: unknown = value[index];
      const next = dropOptionalNulls(items, entry);
      if (next !== entry) mapped ??= value.slice();
      if (mapped !== undefined) mapped[index] = next;
    }
    return mapped ?? value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  // Visit only the names the schema says can change (usually a few), not every key of the value.
  for (const key of nulls.keys) {
    if (record[key] !== null || !Object.hasOwn(record, key)) continue;
    copy ??= { ...record };
    delete copy[key];
  }
  for (const [key, child] of nulls.properties) {
    if (!Object.hasOwn(record, key)) continue;
    const entry = record[key];
    if (entry === null && nulls.keys.has(key)) continue;
    const next = dropOptionalNulls(child, entry);
    if (next === entry) continue;
    copy ??= { ...record };
    defineOwn(copy, key, next);
  }
  return copy ?? value;
}
