import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dropOptionalNulls, toOpenAIStrictSchema } from './to-openai-strict-schema.js';

const ajv = new Ajv2020({ strict: false });

/** Every object node is closed and requires every property it declares. */
function expectStrictEverywhere(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(expectStrictEverywhere);
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (record.properties !== undefined) {
    expect(record.additionalProperties).toBe(false);
    expect(record.required).toEqual(Object.keys(record.properties as object));
  }
  expect(record).not.toHaveProperty('$ref');
  expect(record).not.toHaveProperty('$defs');
  for (const [key, value] of Object.entries(record)) if (key !== 'enum' && key !== 'const') expectStrictEverywhere(value);
}

describe('toOpenAIStrictSchema', () => {
  const original = {
    type: 'object',
    $defs: { point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x'] } },
    properties: {
      name: { type: 'string' },
      nickname: { type: 'string', description: 'optional' },
      color: { enum: ['red', 'green'] },
      origin: { $ref: '#/$defs/point' },
      path: { type: 'array', items: { $ref: '#/$defs/point' } },
      note: { type: ['string', 'null'] },
      flag: { const: true },
    },
    required: ['name', 'path'],
  } as const;

  it('requires every property, makes optional ones nullable, closes objects and inlines references', () => {
    const result = toOpenAIStrictSchema(original);
    expect(result.strict).toBe(true);
    expectStrictEverywhere(result.schema);
    const properties = result.schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.nickname).toEqual({ type: ['string', 'null'], description: 'optional' });
    expect(properties.color).toEqual({ anyOf: [{ enum: ['red', 'green'] }, { type: 'null' }] });
    // Already nullable: left as it is, and a null there stays a value.
    expect(properties.note).toEqual({ type: ['string', 'null'] });
    expect(properties.flag).toEqual({ anyOf: [{ const: true }, { type: 'null' }] });
  });

  it('accepts what a strict model sends, and dropOptionalNulls turns it back into valid original arguments', () => {
    const result = toOpenAIStrictSchema(original);
    if (!result.strict) throw new Error(result.reason);
    const fromModel = { name: 'a', nickname: null, color: null, origin: { x: 1, y: null }, path: [{ x: 1, y: null }, { x: 2, y: 3 }], note: null, flag: null };
    expect(ajv.validate(result.schema, fromModel)).toBe(true);
    expect(ajv.validate(original, fromModel)).toBe(false);
    const restored = dropOptionalNulls(result.optionalNulls!, fromModel);
    expect(restored).toEqual({ name: 'a', origin: { x: 1 }, path: [{ x: 1 }, { x: 2, y: 3 }], note: null });
    expect(ajv.validate(original, restored)).toBe(true);
  });

  it('returns the same object when no null needs dropping', () => {
    const result = toOpenAIStrictSchema(original);
    if (!result.strict) throw new Error(result.reason);
    const args = { name: 'a', path: [{ x: 1 }] };
    expect(dropOptionalNulls(result.optionalNulls!, args)).toBe(args);
  });

  it('keeps a property named __proto__ as an own property', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as Record<string, unknown>;
    const result = toOpenAIStrictSchema(schema);
    expect(result.strict).toBe(true);
    expect(Object.keys(result.schema.properties as object)).toEqual(['__proto__']);
    expect(result.schema.required).toEqual(['__proto__']);
    if (!result.strict) return;
    const args = JSON.parse('{"__proto__":null}') as Record<string, unknown>;
    expect(Object.keys(dropOptionalNulls(result.optionalNulls!, args) as object)).toEqual([]);
  });

  it('converts each schema once (cached by identity) and freezes the result', () => {
    const schema = Object.freeze({ type: 'object', properties: { a: { type: 'string' } } });
    const first = toOpenAIStrictSchema(schema);
    expect(toOpenAIStrictSchema(schema)).toBe(first);
    expect(Object.isFrozen(first.schema)).toBe(true);
  });

  it.each([
    ['a zod record', z.toJSONSchema(z.object({ labels: z.record(z.string(), z.string()) })), '"propertyNames"'],
    ['an open record', { type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } } }, 'open record'],
    ['an object without properties', { type: 'object', properties: { any: { type: 'object' } } }, 'without declared properties'],
    ['oneOf', { type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'number' }] } } }, '"oneOf"'],
    ['allOf', { type: 'object', properties: { a: { allOf: [{ type: 'string' }] } } }, '"allOf"'],
    ['patternProperties', { type: 'object', properties: {}, patternProperties: { '^x': { type: 'string' } } }, '"patternProperties"'],
    ['a recursive reference', { type: 'object', properties: { child: { $ref: '#' } } }, 'recursive'],
    ['a remote reference', { type: 'object', properties: { child: { $ref: 'https://example.com/s.json' } } }, 'not a local definition'],
    ['an untyped property', { type: 'object', properties: { anything: {} } }, 'untyped'],
    ['an array without items', { type: 'object', properties: { list: { type: 'array' } } }, 'needs "items"'],
    ['an optional property inside anyOf', { type: 'object', properties: { u: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'string' }] } }, required: ['u'] }, 'inside "anyOf"'],
    ['a required undeclared property', { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] }, 'undeclared property'],
    ['a union at the root', { type: 'object', properties: {}, anyOf: [{ type: 'object', properties: {} }] }, 'root must be an object'],
  ])('falls back to strict: false for %s, saying why', (_label, schema, reason) => {
    const result = toOpenAIStrictSchema(schema);
    expect(result.strict).toBe(false);
    if (result.strict) return;
    expect(result.reason).toContain(reason);
    // The non-strict schema is the original, unchanged.
    expect(result.schema).toEqual(schema);
  });
});

describe('a strict model call through the registry', () => {
  it('a null for an optional property arrives as absent, so the original schema accepts it', async () => {
    const { createToolRegistry } = await import('../registry/create-tool-registry.js');
    const registry = createToolRegistry({
      tools: [{ name: 'greet', description: 'Greet.', input: z.object({ name: z.string(), title: z.string().optional(), note: z.string().nullable().optional() }), dispatch: (args: unknown) => args }],
    });
    expect(registry.project('openai-chat')[0]!.function.strict).toBe(true);
    const outcome = await registry.dispatch({ callId: '1', name: 'greet', arguments: '{"name":"Ada","title":null,"note":null}' }, { grantedTools: ['greet'] });
    expect(outcome.ok && outcome.value).toEqual({ name: 'Ada', note: null });
    const wrong = await registry.dispatch({ callId: '2', name: 'greet', arguments: '{"name":null}' }, { grantedTools: ['greet'] });
    expect(wrong.ok).toBe(false);
  });
});

describe('OpenAPI `nullable: true`', () => {
  const input = {
    type: 'object',
    properties: { id: { type: 'string' }, label: { type: 'string', nullable: true }, tag: { type: 'string', nullable: true, enum: ['a', 'b'] } },
    required: ['id'],
    additionalProperties: false,
  } as const;

  it('projects as a null type, and a null stays a value (not "absent")', () => {
    const result = toOpenAIStrictSchema(input);
    expect(result.strict).toBe(true);
    if (!result.strict) return;
    const properties = result.schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.label).toEqual({ type: ['string', 'null'] });
    expect(result.optionalNulls?.keys.has('label') ?? false).toBe(false);
    // The enum excludes null, so the original rejects it there: a null still means absent.
    expect(result.optionalNulls?.keys.has('tag')).toBe(true);
  });

  it('dispatch keeps the null the original schema accepts ("clear the label")', async () => {
    const { createToolRegistry } = await import('../registry/create-tool-registry.js');
    const seen: unknown[] = [];
    const registry = createToolRegistry({
      tools: [{ name: 'set_label', description: 'Set or clear the label.', input, dispatch: (args: unknown) => (seen.push(args), 'ok') }],
    });
    for (const args of ['{"id":"a","label":null}', { id: 'a', label: null }]) {
      const outcome = await registry.dispatch({ callId: 'c', name: 'set_label', arguments: args }, { grantedTools: ['set_label'] });
      expect(outcome.ok).toBe(true);
      expect(seen.at(-1)).toEqual({ id: 'a', label: null });
    }
    const absent = await registry.dispatch({ callId: 'd', name: 'set_label', arguments: '{"id":"a","tag":null}' }, { grantedTools: ['set_label'] });
    expect(absent.ok).toBe(true);
    expect(seen.at(-1)).toEqual({ id: 'a' });
  });
});

describe('keywords beside a $ref', () => {
  const input = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { user: { $ref: '#/$defs/Base', properties: { role: { type: 'string' } }, required: ['role'] } },
    required: ['user'],
    $defs: { Base: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
  } as const;

  it('make the tool non-strict (OpenAI) and undetailed (Gemini) rather than replace the target', async () => {
    const result = toOpenAIStrictSchema(input);
    expect(result.strict).toBe(false);
    if (!result.strict) expect(result.reason).toContain('beside the reference');
    const { createToolRegistry } = await import('../registry/create-tool-registry.js');
    const registry = createToolRegistry({ tools: [{ name: 'create_user', description: 'Create a user.', input, dispatch: (args: unknown) => args }] });
    expect(registry.project('openai-responses')[0]!.strict).toBe(false);
    // Gemini gets the object without detail (no parameters) rather than a wrong one.
    const gemini = registry.project('gemini')[0]!;
    expect(JSON.stringify(gemini.parameters ?? {})).not.toContain('"role"');
    // The arguments that are valid for the original schema still dispatch.
    const outcome = await registry.dispatch({ callId: 'b', name: 'create_user', arguments: '{"user":{"id":"u1","role":"admin"}}' }, { grantedTools: ['create_user'] });
    expect(outcome.ok).toBe(true);
  });
});
