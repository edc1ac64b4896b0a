import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toGeminiSchema } from './to-gemini-schema.js';

// Every keyword of `@google/genai`'s Schema; nothing else may reach Gemini.
const GEMINI_KEYWORDS = new Set([
  'type', 'title', 'description', 'nullable', 'enum', 'format', 'pattern', 'default', 'example', 'minimum', 'maximum',
  'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'items', 'properties', 'required', 'anyOf',
]);

function expectOnlyGeminiKeywords(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    expect(GEMINI_KEYWORDS.has(key), `keyword ${key}`).toBe(true);
    if (key === 'properties') Object.values(value as object).forEach(expectOnlyGeminiKeywords);
    else if (key === 'items') expectOnlyGeminiKeywords(value);
    else if (key === 'anyOf') (value as unknown[]).forEach(expectOnlyGeminiKeywords);
  }
}

const convert = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  toGeminiSchema({ type: 'object', properties, ...extra })?.properties;

describe('toGeminiSchema', () => {
  it('inlines $ref and $defs and drops what Gemini lacks', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      additionalProperties: false,
      definitions: { tag: { type: 'string', maxLength: 8, format: 'hostname' } },
      properties: { tags: { type: 'array', items: { $ref: '#/definitions/tag' }, uniqueItems: true, maxItems: 3 } },
      required: ['tags', 'missing'],
    };
    const result = toGeminiSchema(schema);
    expect(result).toEqual({ type: 'OBJECT', properties: { tags: { type: 'ARRAY', maxItems: '3', items: { type: 'STRING', maxLength: '8' } } }, required: ['tags'] });
    expectOnlyGeminiKeywords(result);
  });

  it('rewrites const, null unions, type arrays, oneOf and exclusive bounds', () => {
    expect(convert({
      mode: { const: 'fast' },
      size: { const: 3 },
      maybe: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      either: { type: ['string', 'integer'] },
      nullableNumber: { type: ['number', 'null'], exclusiveMinimum: 0, exclusiveMaximum: 1 },
      choice: { oneOf: [{ type: 'string' }, { type: 'boolean' }] },
      level: { enum: [1, 2, 3] },
      label: { enum: ['a', null] },
    })).toEqual({
      mode: { type: 'STRING', enum: ['fast'], format: 'enum' },
      size: { type: 'INTEGER', minimum: 3, maximum: 3 },
      maybe: { type: 'STRING', nullable: true },
      either: { anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] },
      nullableNumber: { type: 'NUMBER', minimum: 0, maximum: 1, nullable: true },
      choice: { anyOf: [{ type: 'STRING' }, { type: 'BOOLEAN' }] },
      level: { type: 'INTEGER' },
      label: { type: 'STRING', enum: ['a'], format: 'enum', nullable: true },
    });
  });

  it('merges object allOf branches', () => {
    expect(convert({ both: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'number' } } }] } })).toEqual({
      both: { type: 'OBJECT', properties: { a: { type: 'STRING' }, b: { type: 'NUMBER' } }, required: ['a'] },
    });
  });

  it('cuts a recursive reference to a bare object and survives a remote one', () => {
    const tree = { type: 'object', $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } } } }, properties: { root: { $ref: '#/$defs/node' } } };
    expect(toGeminiSchema(tree)?.properties?.root).toEqual({ type: 'OBJECT', properties: { children: { type: 'ARRAY', items: { type: 'OBJECT' } } } });
    expect(toGeminiSchema({ type: 'object', description: 'd', properties: { a: { $ref: 'https://example.com/x' } } })).toBeUndefined();
  });

  it('omits parameters for a tool without properties (Gemini refuses an empty OBJECT)', () => {
    expect(toGeminiSchema(z.toJSONSchema(z.object({})))).toBeUndefined();
    expect(toGeminiSchema({ type: 'object' })).toBeUndefined();
  });

  it('keeps only the formats Gemini accepts', () => {
    expect(convert({ when: { type: 'string', format: 'date-time' }, mail: { type: 'string', format: 'email' }, n: { type: 'integer', format: 'int32' } })).toEqual({
      when: { type: 'STRING', format: 'date-time' },
      mail: { type: 'STRING' },
      n: { type: 'INTEGER', format: 'int32' },
    });
  });

  it('converts a zod schema to keywords Gemini knows only', () => {
    const schema = z.toJSONSchema(
      z.object({
        query: z.string().min(1).max(100),
        filters: z.object({ kind: z.literal('web'), limit: z.number().int().positive().optional() }).strict(),
        meta: z.record(z.string(), z.string()),
        mode: z.union([z.literal('a'), z.literal('b')]).nullable(),
      }),
      { io: 'input' },
    );
    expectOnlyGeminiKeywords(toGeminiSchema(schema));
  });

  it('keeps a property named __proto__', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}') as Record<string, unknown>;
    const result = toGeminiSchema(schema);
    expect(Object.keys(result?.properties ?? {})).toEqual(['__proto__']);
    expect(result?.required).toEqual(['__proto__']);
  });
});
