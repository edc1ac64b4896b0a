import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { sizeBoundOf } from '../dispatch/snapshot-json.js';
import { compileZodDirect } from './compile-zod-direct.js';
import type { DirectValidator } from './direct-program.js';
import { mustCompile, sameShape, stringLengthArray } from './__fixtures__/direct-fixtures.js';

const compiled = (schema: unknown): DirectValidator => mustCompile(compileZodDirect, schema);

const task = z.object({
  id: z.string(),
  done: z.boolean(),
  estimate: z.number(),
  tags: z.array(z.string()),
  assignee: z.object({ login: z.string(), team: z.string() }).nullable(),
  note: z.string().optional(),
});
const issue = z.object({
  title: z.string(),
  priority: z.enum(['low', 'high']),
  kind: z.literal('issue'),
  tasks: z.array(task),
  parent: z.null(),
});
const issueValue = {
  title: 'Latency',
  priority: 'high',
  kind: 'issue',
  tasks: [
    { id: 'T-1', done: false, estimate: 1.5, tags: ['a'], assignee: { login: 'dev', team: 'core' } },
    { id: 'T-2', done: true, estimate: 2, tags: [], assignee: null, note: 'later' },
  ],
  parent: null,
};

describe('compileZodDirect: what it accepts', () => {
  it("accepts what zod accepts, with zod's output, fresh, and the size walk's bound", () => {
    const result = compiled(issue)(issueValue);
    expect(result).toBeDefined();
    expect(result?.value).toEqual(issue.parse(issueValue));
    expect(result?.value).not.toBe(issueValue);
    expect((result?.value as typeof issueValue).tasks[0]).not.toBe(issueValue.tasks[0]);
    expect(result?.sizeBound).toBe(sizeBoundOf(issueValue, 0));
  });

  it("gives up on an array whose proxy's length is not a number", () => {
    expect(compiled(z.object({ list: z.array(z.number()) }))({ list: stringLengthArray() })).toBeUndefined();
  });

  it("puts members in the schema's order, as zod does", () => {
    const schema = z.object({ a: z.string(), b: z.number(), c: z.object({ x: z.boolean(), y: z.boolean() }) });
    const value = { c: { y: true, x: false }, b: 1, a: 'a' };
    const result = compiled(schema)(value);
    expect(Object.keys(result?.value as object)).toEqual(['a', 'b', 'c']);
    expect(sameShape(result?.value, schema.parse(value))).toBe(true);
  });

  it('hands every other node to its own zod parser: checks, formats, transforms, unions, records', () => {
    const schema = z.object({
      name: z.string().min(2).max(8),
      email: z.email(),
      count: z.int().positive(),
      shout: z.string().transform((text) => text.toUpperCase()),
      either: z.union([z.string(), z.number()]),
      labels: z.record(z.string(), z.number()),
      even: z.number().refine((number) => number % 2 === 0),
    });
    const value = { name: 'ada', email: 'ada@example.com', count: 3, shout: 'hi', either: 4, labels: { a: 1 }, even: 2 };
    const result = compiled(schema)(value);
    expect(result?.value).toEqual(schema.parse(value));
    expect((result?.value as { shout: string }).shout).toBe('HI');
    expect(result?.sizeBound).toBe(sizeBoundOf(value, 0));
    for (const bad of [{ name: 'a' }, { email: 'nope' }, { count: 1.5 }, { count: -1 }, { either: true }, { labels: { a: 'x' } }, { even: 3 }]) {
      expect(compiled(schema)({ ...value, ...bad })).toBeUndefined();
    }
  });

  it('leaves absent optional members absent, as zod does', () => {
    const schema = z.object({ a: z.string().optional(), b: z.string().nullable().optional(), c: z.string().optional().nullable() });
    expect(compiled(schema)({})?.value).toEqual({});
    expect(Object.keys(compiled(schema)({})?.value as object)).toEqual([]);
    expect(compiled(schema)({ b: null, c: null })?.value).toEqual(schema.parse({ b: null, c: null }));
  });

  it('leaves a nested object with a defaulted member to zod, and writes no code for it', () => {
    const schema = z.object({ a: z.string(), nested: z.object({ x: z.string(), y: z.string().default('d') }) });
    const value = { a: 'a', nested: { x: 'x' } };
    const result = compiled(schema)(value);
    expect(sameShape(result?.value, schema.parse(value))).toBe(true);
    expect((result?.value as { nested: { y: string } }).nested.y).toBe('d');
    expect(result?.sizeBound).toBe(sizeBoundOf(value, 0));
  });

  it('reads zod/mini schemas too: the same core', () => {
    const schema = zm.object({ a: zm.string(), b: zm.optional(zm.number()), tags: zm.array(zm.string().check(zm.minLength(2))) });
    const value = { a: 'x', tags: ['ab'] };
    expect(sameShape(compiled(schema)(value)?.value, zm.parse(schema, value))).toBe(true);
    expect(compiled(schema)({ a: 'x', tags: ['a'] })).toBeUndefined();
  });

  it('compiles a recursive schema without unrolling it forever, and still validates it', () => {
    const node = z.object({
      name: z.string(),
      get children(): z.ZodArray<typeof node> {
        return z.array(node);
      },
    });
    const value = { name: 'root', children: [{ name: 'leaf', children: [] }] };
    const result = compiled(node)(value);
    expect(result?.value).toEqual(node.parse(value));
    expect(compiled(node)({ name: 'root', children: [{ name: 1, children: [] }] })).toBeUndefined();
  });
});

describe('compileZodDirect: where it gives up, so zod decides and reports', () => {
  const schema = z.object({ a: z.string(), b: z.number().optional() });
  const validate = compiled(schema);

  it.each([
    ['a key the schema does not name', { a: 'x', extra: 1 }],
    ['a missing required member', {}],
    ['a present but undefined optional member', { a: 'x', b: undefined }],
    ['an undefined required member', { a: undefined }],
    ['a wrong type', { a: 1 }],
    ['NaN', { a: 'x', b: Number.NaN }],
    ['Infinity', { a: 'x', b: Number.POSITIVE_INFINITY }],
    ['an array for the object', ['x']],
    ['null for the object', null],
    ['a string for the object', 'x'],
    ['an own "__proto__" key from JSON text', JSON.parse('{"a":"x","__proto__":{"b":1}}') as unknown],
  ])('%s', (_label, value) => {
    expect(validate(value)).toBeUndefined();
  });

  it('a member inherited through a polluted prototype is read as zod reads it, and an ill-typed one gives up', () => {
    const polluted = Object.create({ b: 2 }) as Record<string, unknown>;
    polluted.a = 'x';
    expect(sameShape(validate(polluted)?.value, schema.parse(polluted))).toBe(true);
    const wrong = Object.create({ b: 'two' }) as Record<string, unknown>;
    wrong.a = 'x';
    expect(validate(wrong)).toBeUndefined();
  });

  it('a member whose value is not an enumerable own property', () => {
    const hidden = Object.defineProperty({ a: 'x' }, 'b', { value: 1, enumerable: false });
    expect(validate(hidden)).toBeUndefined();
    expect(compiled(z.object({ a: z.string(), toString: z.unknown() }))({ a: 'x' })).toBeUndefined();
  });

  it('a strict or loose object with an unknown key, and a member with a default', () => {
    expect(compiled(z.strictObject({ a: z.string() }))({ a: 'x', b: 1 })).toBeUndefined();
    expect(compiled(z.looseObject({ a: z.string() }))({ a: 'x', b: 1 })).toBeUndefined();
    expect(compileZodDirect(z.object({ a: z.string().default('x') }))).toBeUndefined();
  });

  it('a delegated value the size walk would refuse: too deep, or not finite', () => {
    const anything = compiled(z.object({ value: z.unknown() }));
    let deep: unknown = 'end';
    for (let level = 0; level < 80; level += 1) deep = { deep };
    expect(anything({ value: deep })).toBeUndefined();
    expect(anything({ value: { n: Number.NaN } })).toBeUndefined();
    expect(anything({ value: { n: 1 } })?.value).toEqual({ value: { n: 1 } });
  });

  it('has no direct validator for what is not a zod object schema', () => {
    expect(compileZodDirect({ type: 'object' })).toBeUndefined();
    expect(compileZodDirect(z.string())).toBeUndefined();
    expect(compileZodDirect(z.object({ a: z.string() }).refine(() => true))).toBeUndefined();
    const protoShape = Object.defineProperty({}, '__proto__', { value: z.string(), enumerable: true });
    expect(compileZodDirect(z.object(protoShape))).toBeUndefined();
    expect(compileZodDirect(null)).toBeUndefined();
  });
});

describe('compileZodDirect: adversarial member names', () => {
  // Member names are the only schema text in the generated code.
  const names = ['"]; throw new Error("pwned"); //', "'", '`${globalThis.x}`', '\\', '\n', '\u2028\u2029', '*/', 'constructor', 'toString', 'hasOwnProperty', '', ' ', '\ud800', '0', 'size', 'input', 'GIVE_UP'];

  it('compiles every name as data and matches zod', () => {
    const shape = Object.fromEntries(names.map((name) => [name, z.string()]));
    const schema = z.object(shape);
    const value = Object.fromEntries(names.map((name, index) => [name, `v${index}`]));
    const result = compiled(schema)(value);
    expect(result?.value).toEqual(schema.parse(value));
    expect(result?.sizeBound).toBe(sizeBoundOf(value, 0));
  });

  it('reads an inherited "constructor" as present, as zod does, and gives up', () => {
    expect(compiled(z.object({ constructor: z.string().optional() }))({})).toBeUndefined();
    expect(z.object({ constructor: z.string().optional() }).safeParse({}).success).toBe(false);
  });
});
