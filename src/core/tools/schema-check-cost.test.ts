import { describe, expect, it } from 'vitest';
import { shapes, twoWaysDown } from './__fixtures__/costly-schemas.js';
import { CHECK_COST_CEILING, schemaCheckCost, UnresolvedReferenceError } from './schema-check-cost.js';

describe('schemaCheckCost', () => {
  it('is 1 for a schema that checks a value against itself alone, and counts each schema a member meets', () => {
    expect(schemaCheckCost({ type: 'string' })).toBe(1);
    expect(schemaCheckCost({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] })).toBe(1);
    // A member named `a` meets its own schema and the additional one's… at most: properties give one, the rest add.
    expect(schemaCheckCost({ type: 'object', properties: { a: { type: 'number' } }, additionalProperties: { type: 'string' }, propertyNames: { maxLength: 3 } })).toBe(3);
  });

  it('counts every alternative of a union, at the value and at each item below it', () => {
    expect(schemaCheckCost({ anyOf: shapes(300) })).toBe(301);
    expect(schemaCheckCost({ type: 'object', properties: { x: { type: 'array', items: { anyOf: shapes(40) } } } })).toBe(41);
    expect(schemaCheckCost({ allOf: [{ type: 'object' }, { oneOf: [{ required: ['a'] }, { required: ['b'] }] }] })).toBe(5);
  });

  it('multiplies unions nested through the levels of a value', () => {
    const inner = { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };
    // Each of the outer union's three alternatives applies the inner one to an item: 3 × 4 checks of one item.
    const outer = { anyOf: [{ items: inner }, { items: inner }, { items: inner }] };
    expect(schemaCheckCost(outer)).toBe(12);
  });

  it('follows local references, and a value nested through definitions that each offer two ways down doubles at every level', () => {
    expect(schemaCheckCost(twoWaysDown(3))).toBeGreaterThanOrEqual(8);
    expect(schemaCheckCost(twoWaysDown(22))).toBe(CHECK_COST_CEILING);
  });

  it('keeps a recursive tree of one way down at its width', () => {
    // An item meets `{ $ref: '#' }` and the root it names.
    const tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } } };
    expect(schemaCheckCost(tree)).toBe(2);
    const definitions = { node: { type: 'object', properties: { next: { $ref: '#/definitions/node' } } } };
    expect(schemaCheckCost({ definitions, $ref: '#/definitions/node' })).toBe(2);
  });

  it('calls a schema checked in its own place again, or a reference it cannot follow, too costly', () => {
    expect(schemaCheckCost({ allOf: [{ $ref: '#' }] })).toBe(CHECK_COST_CEILING);
    expect(schemaCheckCost({ $ref: '#anchor', definitions: { a: { $anchor: 'anchor' } } })).toBe(CHECK_COST_CEILING);
    expect(schemaCheckCost({ properties: { a: { $id: 'https://example.com/a', $ref: '#/x', x: {} } } })).toBe(CHECK_COST_CEILING);
  });

  it('refuses a reference that names nothing the schema holds', () => {
    expect(() => schemaCheckCost({ $ref: 'https://example.com/schema.json' })).toThrow(UnresolvedReferenceError);
    expect(() => schemaCheckCost({ properties: { a: { $ref: '#/definitions/missing' } } })).toThrow(UnresolvedReferenceError);
    expect(() => schemaCheckCost({ $ref: '#/definitions/%E0%A4%A' })).toThrow(UnresolvedReferenceError);
    // A pointer reads its segments decoded: `a%2Fb` and `a~1b` both name the member `a/b`.
    expect(schemaCheckCost({ definitions: { 'a/b': { anyOf: [{}, {}] } }, $ref: '#/definitions/a%2Fb' })).toBe(4);
    expect(schemaCheckCost({ definitions: { 'a/b': { anyOf: [{}, {}] } }, $ref: '#/definitions/a~1b' })).toBe(4);
  });

  it('calls a reference inside a subschema with an $id of its own unknowable, however the walk reaches it', () => {
    // Within `inner`, `#/definitions/a22` is `inner`'s own (two ways down, 22 levels), not the root's `{}`.
    const { definitions } = twoWaysDown(22);
    const inner = { $id: 'http://example.com/inner', definitions, properties: { entry: { $ref: '#/definitions/a22' } } };
    const throughPointer = { definitions: { a22: {}, inner }, properties: { x: { $ref: '#/definitions/inner/properties/entry' } } };
    expect(schemaCheckCost(throughPointer)).toBe(CHECK_COST_CEILING);
    // One object in two places, the first outside `inner` and the second inside it: each place is costed as its own.
    const shared = { $ref: '#/definitions/a22' };
    const twice = { definitions: { a22: {}, inner: { $id: 'http://example.com/inner', definitions, properties: { entry: shared } } }, properties: { x: shared, y: { $ref: '#/definitions/inner' } } };
    expect(schemaCheckCost(twice)).toBe(CHECK_COST_CEILING);
    // A pointer that passes no `$id` still resolves.
    expect(schemaCheckCost({ $id: 'http://example.com/root', definitions: { a: { type: 'string' } }, properties: { x: { $ref: '#/definitions/a' } } })).toBe(2);
  });

  it('counts each name an object check may record at run time in 2019-09 and 2020-12, and none in draft-07', () => {
    const names = Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`n${index}`, true]));
    const union = { type: 'array', items: { anyOf: [{ properties: names }, { type: 'string' }] } };
    expect(schemaCheckCost({ $schema: 'https://json-schema.org/draft/2019-09/schema', ...union })).toBe(1_003);
    expect(schemaCheckCost({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...union })).toBe(1_003);
    expect(schemaCheckCost(union)).toBe(3);
    // A plain object schema's names are known as it compiles.
    expect(schemaCheckCost({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: names })).toBe(1);
  });

  it('walks a chain of thousands of references without the stack', () => {
    const definitions: Record<string, unknown> = { d0: { type: 'string' } };
    for (let index = 1; index < 5_000; index += 1) definitions[`d${index}`] = { $ref: `#/definitions/d${index - 1}` };
    expect(schemaCheckCost({ definitions, $ref: '#/definitions/d4999' })).toBe(5_001);
  });
});
