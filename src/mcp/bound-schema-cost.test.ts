import { describe, expect, it } from 'vitest';
import { UnresolvedReferenceError } from '../core/internal.js';
import { shapes } from '../core/tools/__fixtures__/costly-schemas.js';
import { boundSchemaCost, MAX_CHECKED_SCHEMA_NODES, MAX_CHECKS_PER_NODE, MAX_LISTING_SCHEMA_NODES } from './bound-schema-cost.js';

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

  it('takes each copy it keeps from a listing\'s budget, and past what is left asks only for an object', () => {
    const properties = Object.fromEntries(Array.from({ length: 998 }, (_, index) => [`p${index}`, { type: 'string' }]));
    const schema = { type: 'object', properties };
    const budget = { nodes: MAX_LISTING_SCHEMA_NODES };
    // 1,000 objects each (the root, `properties`, 998 members): as many fit as the budget holds thousands, the next does not.
    const fit = MAX_LISTING_SCHEMA_NODES / 1_000;
    const kept = Array.from({ length: fit + 1 }, () => boundSchemaCost(schema, budget));
    expect(kept.slice(0, fit).every((copy) => copy === schema)).toBe(true);
    expect(kept[fit]).toEqual({ type: 'object' });
    expect(budget.nodes).toBe(0);
    // A small schema still fits what is left of another listing's budget.
    const small = { type: 'object', properties: { a: { type: 'string' } } };
    expect(boundSchemaCost(small, { nodes: 3 })).toBe(small);
    expect(boundSchemaCost(small, { nodes: 2 })).toEqual({ type: 'object' });
  });

  it('counts a boolean as an object: each `false` property is a check ajv compiles', () => {
    const falses = Object.fromEntries(Array.from({ length: MAX_CHECKED_SCHEMA_NODES }, (_, index) => [`p${index}`, false]));
    expect(boundSchemaCost({ type: 'object', properties: { x: { type: 'object', properties: falses } } })).toEqual({ type: 'object' });
    const few = { type: 'object', properties: { x: { type: 'object', properties: { a: false, b: false } } } };
    const budget = { nodes: 6 };
    expect(boundSchemaCost(few, budget)).toBe(few);
    expect(budget.nodes).toBe(0);
  });
});
