import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { detachJson, sizeBoundOf } from '../dispatch/snapshot-json.js';
import { compileZodDirect } from './compile-zod-direct.js';
import { sameShape } from './__fixtures__/direct-fixtures.js';

// Differential: random schemas, random values, zod as the oracle.

type Spec =
  | { readonly kind: 'string' | 'number' | 'boolean' | 'null' | 'email' | 'min2' | 'int' | 'unknown' | 'defaulted' }
  | { readonly kind: 'enum'; readonly values: readonly [string, ...string[]] }
  | { readonly kind: 'literal'; readonly value: string | number | boolean }
  | { readonly kind: 'array' | 'optional' | 'nullable' | 'record'; readonly inner: Spec }
  | { readonly kind: 'union'; readonly options: readonly [Spec, Spec] }
  | { readonly kind: 'object'; readonly mode: 'strip' | 'strict' | 'loose'; readonly members: readonly (readonly [string, Spec])[] };

const memberName = fc.constantFrom('a', 'b', 'c', 'id', 'constructor', 'x y', '"q"');

const specArbitrary: fc.Arbitrary<Spec> = fc.letrec<{ spec: Spec }>((tie) => ({
  spec: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<Spec>({ kind: 'string' }, { kind: 'number' }, { kind: 'boolean' }, { kind: 'null' }, { kind: 'email' }, { kind: 'min2' }, { kind: 'int' }, { kind: 'unknown' }, { kind: 'defaulted' }),
    fc.record({ kind: fc.constant('enum' as const), values: fc.tuple(fc.constantFrom('x', 'y'), fc.constantFrom('z', 'w')) }),
    fc.record({ kind: fc.constant('literal' as const), value: fc.oneof(fc.constantFrom('x', 'on'), fc.integer({ min: -2, max: 2 }), fc.boolean()) }),
    fc.record({ kind: fc.constantFrom('array' as const, 'optional' as const, 'nullable' as const, 'record' as const), inner: tie('spec') }),
    fc.record({ kind: fc.constant('union' as const), options: fc.tuple(tie('spec'), tie('spec')) }),
    fc.record({
      kind: fc.constant('object' as const),
      mode: fc.constantFrom('strip' as const, 'strict' as const, 'loose' as const),
      members: fc.uniqueArray(fc.tuple(memberName, tie('spec')), { maxLength: 4, selector: ([name]) => name }),
    }),
  ),
})).spec;

function toZod(spec: Spec): z.ZodType {
  switch (spec.kind) {
    case 'string':
      return z.string();
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'null':
      return z.null();
    case 'email':
      return z.email();
    case 'min2':
      return z.string().min(2);
    case 'int':
      return z.int();
    case 'unknown':
      return z.unknown();
    case 'defaulted':
      return z.string().default('d');
    case 'enum':
      return z.enum(spec.values);
    case 'literal':
      return z.literal(spec.value);
    case 'array':
      return z.array(toZod(spec.inner));
    case 'optional':
      return toZod(spec.inner).optional();
    case 'nullable':
      return toZod(spec.inner).nullable();
    case 'record':
      return z.record(z.string(), toZod(spec.inner));
    case 'union':
      return z.union([toZod(spec.options[0]), toZod(spec.options[1])]);
    case 'object': {
      const shape = Object.fromEntries(spec.members.map(([name, member]) => [name, toZod(member)]));
      return spec.mode === 'strict' ? z.strictObject(shape) : spec.mode === 'loose' ? z.looseObject(shape) : z.object(shape);
    }
  }
}

const jsonLeaf = fc.oneof(fc.string({ maxLength: 6 }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constantFrom('a@b.co', 'x', 'on'));

/** A value that conforms to the spec, mostly, with the odd wrong leaf, missing or extra member. */
function valueFor(spec: Spec, depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(jsonLeaf, fc.constant([]), fc.constant({}));
  const right = ((): fc.Arbitrary<unknown> => {
    switch (spec.kind) {
      case 'string':
        return fc.string({ maxLength: 6 });
      case 'number':
        return fc.double();
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'email':
        return fc.constantFrom('a@b.co', 'dev@example.com', 'not-an-email');
      case 'min2':
        return fc.string({ maxLength: 4 });
      case 'int':
        return fc.oneof(fc.integer(), fc.double());
      case 'unknown':
        return fc.jsonValue({ maxDepth: 2 });
      case 'defaulted':
        return fc.option(fc.string({ maxLength: 3 }), { nil: undefined });
      case 'enum':
        return fc.constantFrom(...spec.values, 'other');
      case 'literal':
        return fc.constantFrom(spec.value, 'x', 1);
      case 'array':
        return fc.array(valueFor(spec.inner, depth + 1), { maxLength: 3 });
      case 'optional':
        return fc.option(valueFor(spec.inner, depth + 1), { nil: undefined });
      case 'nullable':
        return fc.option(valueFor(spec.inner, depth + 1), { nil: null });
      case 'record':
        return fc.dictionary(memberName, valueFor(spec.inner, depth + 1), { maxKeys: 2 });
      case 'union':
        return fc.oneof(valueFor(spec.options[0], depth + 1), valueFor(spec.options[1], depth + 1));
      case 'object': {
        const members = spec.members.map(([name, member]) => [name, fc.option(valueFor(member, depth + 1), { freq: 8, nil: undefined })] as const);
        const base = fc.tuple(...members.map(([, arbitrary]) => arbitrary)).map((values) => {
          const object: Record<string, unknown> = {};
          // Absent, or present: an optional member's `undefined` comes both ways.
          values.forEach((value, index) => {
            if (value !== undefined || index % 2 === 0) object[members[index]?.[0] ?? ''] = value;
          });
          return object;
        });
        return fc.oneof({ weight: 6, arbitrary: base }, { weight: 1, arbitrary: base.map((object) => ({ ...object, unknownMember: 1 })) });
      }
    }
  })();
  return depth > 4 ? right : fc.oneof({ weight: 9, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

describe('compileZodDirect against zod, on random schemas and values', () => {
  it('accepts only what zod accepts, with the same output (members in the same order) and the size walk bound', () => {
    const objectSpec = fc.record({
      kind: fc.constant('object' as const),
      mode: fc.constantFrom('strip' as const, 'strict' as const, 'loose' as const),
      members: fc.uniqueArray(fc.tuple(memberName, specArbitrary), { minLength: 1, maxLength: 5, selector: ([name]) => name }),
    });
    const cases = objectSpec.chain((spec) => fc.tuple(fc.constant(spec), fc.array(valueFor(spec), { minLength: 4, maxLength: 4 })));
    let accepted = 0;
    let gaveUp = 0;
    fc.assert(
      fc.property(cases, ([spec, values]) => {
        const schema = toZod(spec);
        const validate = compileZodDirect(schema);
        // Only a member that fills in its absence (a default) at the top leaves the whole schema to
        // zod; deeper, zod takes that object alone.
        if (validate === undefined) {
          const fillsIn = (member: Spec): boolean => {
            const { optin, optout } = toZod(member)._zod;
            return optin !== undefined && !(optin === 'optional' && optout === 'optional');
          };
          expect(spec.members.some(([, member]) => fillsIn(member))).toBe(true);
          return;
        }
        for (const value of values) {
          const oracle = schema.safeParse(value);
          // Arguments the validator owns are handed back as zod hands them back; a caller's are first copied to plain
          // JSON (a getter or a proxy must not be read twice), so what zod passes through comes back as that copy.
          for (const owned of [true, false]) {
            const direct = validate(value, owned);
            if (direct === undefined) {
              gaveUp += 1;
              continue;
            }
            accepted += 1;
            expect(oracle.success).toBe(true);
            // A caller's arguments are parsed as their plain JSON copy: what zod makes of that copy (zod reads an
            // inherited member, so a `constructor` it was not sent comes back as `Object`, from the copy as well).
            const expected = owned ? oracle : schema.safeParse(detachJson(value, 0)?.value);
            expect(expected.success).toBe(true);
            expect(sameShape(direct.value, expected.data)).toBe(true);
            expect(direct.sizeBound).toBe(sizeBoundOf(value, 0));
          }
        }
      }),
      {
        numRuns: 400,
        // Found at random: an object without a prototype that zod passes through whole under `unknown`.
        examples: [
          [
            [
              {
                kind: 'object',
                mode: 'strip',
                members: [
                  ['c', { kind: 'union', options: [{ kind: 'record', inner: { kind: 'literal', value: 0 } }, { kind: 'unknown' }] }],
                  ['a', { kind: 'union', options: [{ kind: 'unknown' }, { kind: 'union', options: [{ kind: 'boolean' }, { kind: 'string' }] }] }],
                  ['"q"', { kind: 'array', inner: { kind: 'unknown' } }],
                ],
              },
              [{}, {}, {}, { c: Object.assign(Object.create(null) as object, { a: 1 }), a: 0, '"q"': [] }],
            ],
          ],
          // Found at random: a member named `constructor` that a loose object under a union may leave out, which zod
          // reads from the prototype.
          [
            [
              {
                kind: 'object',
                mode: 'strict',
                members: [['id', { kind: 'union', options: [{ kind: 'object', mode: 'loose', members: [['constructor', { kind: 'nullable', inner: { kind: 'union', options: [{ kind: 'null' }, { kind: 'unknown' }] } }]] }, { kind: 'enum', values: ['x', 'z'] }] }]],
              },
              [{ id: {} }, { id: 'x' }, { id: { constructor: null } }, { id: {} }],
            ],
          ],
        ],
      },
    );
    // Both sides of the contract were exercised.
    expect(accepted).toBeGreaterThan(100);
    expect(gaveUp).toBeGreaterThan(100);
  });
});
