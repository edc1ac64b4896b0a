import { describe, expect, it } from 'vitest';
import { UnresolvedReferenceError } from '../core/internal.js';
import { shapes } from '../core/tools/__fixtures__/costly-schemas.js';
import { boundSchemaCost, MAX_CHECKED_SCHEMA_NODES, MAX_CHECKS_PER_NODE } from './bound-schema-cost.js';

describe('boundSchemaCost', () => {
  it('keeps a schema within both bounds as it is', () => {
    const schema = { type: 'object', properties: { x: { type: 'array', items: { anyOf: shapes(MAX_CHECKS_PER_NODE - 1) } } } };
    expect(boundSchemaCost(schema)).toBe(schema);
  });

  it('asks only for an object past the checks of one node, or past the size it compiles', () => {
    expect(boundSchemaCost({ type: 'object', properties: { x: { anyOf: shapes(MAX_CHECKS_PER_NODE) } } })).toEqual({ type: 'object' });
    const properties = Object.fromEntries(Array.from({ length: MAX_CHECKED_SCHEMA_NODES }, (_, index) => [`p${index}`, { type: 'string' }]));
    expect(boundSchemaCost({ type: 'object', properties })).toEqual({ type: 'object' });
    expect(boundSchemaCost({ type: 'object', properties: { x: { $ref: '#x' } }, $defs: { x: { $anchor: 'x' } } })).toEqual({ type: 'object' });
  });

  it('throws for a reference that names nothing the schema holds, however costly the rest', () => {
    expect(() => boundSchemaCost({ type: 'object', properties: { x: { $ref: 'https://example.com/x.json' } } })).toThrow(UnresolvedReferenceError);
    expect(() => boundSchemaCost({ type: 'object', properties: { x: { $ref: '#/definitions/missing' }, y: { anyOf: shapes(100) } } })).toThrow(UnresolvedReferenceError);
  });
});
