import { describe, expect, it } from 'vitest';
import { ToolDefinitionError } from '../errors/tool-errors.js';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { BOUNDED_SCHEMA_LIMITS, checkBoundedSchema } from './check-bounded-schema.js';

const str = { type: 'string', maxLength: 64 };
const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false, ...extra });

describe('checkBoundedSchema (the bounded subset)', () => {
  it('accepts a closed, explicitly bounded schema', () => {
    const schema = closed({
      name: str,
      mode: { type: 'string', enum: ['a', 'b'] },
      count: { type: 'integer', minimum: 0, maximum: 100 },
      ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      tags: { type: 'array', items: str, maxItems: 8, minItems: 0, uniqueItems: true },
      flag: { type: 'boolean' },
      nothing: { type: 'null' },
      nested: closed({ inner: str }),
    });
    expect(checkBoundedSchema(schema)).toEqual([]);
  });

  it.each([
    ['a string without maxLength', closed({ a: { type: 'string' } }), '/properties/a: a string needs "maxLength"'],
    ['a number without bounds', closed({ a: { type: 'number', minimum: 0 } }), 'explicit lower and upper bounds'],
    ['an array without maxItems', closed({ a: { type: 'array', items: str } }), 'needs "maxItems"'],
    ['an array over 256 items', closed({ a: { type: 'array', items: str, maxItems: 257 } }), 'at most 256'],
    ['an unsafe number bound', closed({ a: { type: 'integer', minimum: 0, maximum: 1e300 } }), 'explicit lower and upper bounds'],
    ['an array without items', closed({ a: { type: 'array', maxItems: 3 } }), 'needs "items"'],
    ['an open object', { type: 'object', properties: { a: str } }, 'additionalProperties'],
    ['additionalProperties as a schema', { type: 'object', properties: {}, additionalProperties: str }, 'additionalProperties'],
    ['$ref', closed({ a: { $ref: '#/$defs/x' } }), '"$ref"'],
    ['oneOf', closed({ a: { oneOf: [str] } }), '"oneOf"'],
    ['anyOf', closed({ a: { anyOf: [str] } }), '"anyOf"'],
    ['pattern', closed({ a: { ...str, pattern: '^(a+)+$' } }), '"pattern"'],
    ['a default', closed({ a: { ...str, default: 'x' } }), '"default"'],
    ['an unknown keyword', closed({ a: { ...str, format: 'email' } }), '"format"'],
    ['a type array', closed({ a: { type: ['string', 'null'], maxLength: 3 } }), 'needs a single "type"'],
    ['a non-object root', { type: 'string', maxLength: 3 }, 'the input root must be an object'],
    ['too large an enum', closed({ a: { type: 'string', enum: Array.from({ length: BOUNDED_SCHEMA_LIMITS.maxEnum + 1 }, (_, index) => `v${index}`) } }), 'enum must be an array of at most 64'],
    ['too many properties', closed(Object.fromEntries(Array.from({ length: BOUNDED_SCHEMA_LIMITS.maxProperties + 1 }, (_, index) => [`p${index}`, str]))), 'more than 64 properties'],
  ])('rejects %s', (_label, schema, problem) => {
    const problems = checkBoundedSchema(schema);
    expect(problems.join('\n')).toContain(problem);
  });

  it('rejects depth beyond 8 and more than 256 nodes', () => {
    let deep: Record<string, unknown> = str;
    for (let depth = 0; depth < BOUNDED_SCHEMA_LIMITS.maxDepth; depth += 1) deep = closed({ child: deep });
    expect(checkBoundedSchema(deep).join('\n')).toContain('deeper than 8');
    const wide = closed(Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`p${index}`, closed({ a: str, b: str, c: str, d: str })])));
    expect(checkBoundedSchema(wide).join('\n')).toContain('more than 256 schema nodes');
  });

  it('is enforced at registry build for schemaProfile: bounded, on input and output, naming the field', () => {
    const dispatch = () => null;
    expect(() => createToolRegistry({ tools: [{ name: 'up', description: 'Upstream.', schemaProfile: 'bounded', input: closed({ a: { type: 'string' } }), dispatch }] })).toThrow(ToolDefinitionError);
    try {
      createToolRegistry({ tools: [{ name: 'up', description: 'Upstream.', schemaProfile: 'bounded', input: closed({ a: str }), output: { type: 'object', properties: {} }, dispatch }] });
      expect.unreachable();
    } catch (error) {
      expect((error as ToolDefinitionError).field).toBe('output');
      expect((error as ToolDefinitionError).tool).toBe('up');
    }
    expect(createToolRegistry({ tools: [{ name: 'up', description: 'Upstream.', schemaProfile: 'bounded', input: closed({ a: str }), dispatch }] }).list()).toHaveLength(1);
    // Without the profile the same open schema is fine.
    expect(createToolRegistry({ tools: [{ name: 'up', description: 'Upstream.', input: { type: 'object', properties: { a: { type: 'string' } } }, dispatch }] }).list()).toHaveLength(1);
  });

  it('never walks past its node budget on a hostile schema', () => {
    const huge = closed(Object.fromEntries(Array.from({ length: 20_000 }, (_, index) => [`p${index}`, str])));
    const problems = checkBoundedSchema(huge);
    expect(problems.length).toBeLessThan(5);
  });
});
