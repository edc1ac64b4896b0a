import ucs2lengthModule from 'ajv/dist/runtime/ucs2length.js';
import { MAX_JSON_DEPTH } from '../dispatch/snapshot-json.js';
import { canGenerateCode, createProgram, emitPrimitive, emitValueSet, fresh, isJsonPrimitive, linkProgram, literal, MAX_PROGRAM_NODES, reference, type DirectValidator, type Program } from './direct-program.js';
import type { JsonSchema } from './tool-types.js';

/**
 * The direct validator for a JSON Schema (see direct-program.ts): one
 * generated walk instead of the pipeline's checked copy plus ajv.
 *
 * It compiles only when every node of the schema is in the subset whose ajv
 * semantics it reproduces exactly (with the compiler options of
 * `schema-validator.ts`): `type` (one or several), `enum` and `const` of
 * JSON primitives, `properties`, `required`, boolean `additionalProperties`,
 * `items` (one schema), `minItems`/`maxItems`, `minLength`/`maxLength`
 * (code points, as ajv counts), `pattern` (a `u` RegExp, as ajv builds it),
 * `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`, and annotations.
 * Anything else (`$ref`, combinators, `patternProperties`…) leaves the tool
 * to the copy and ajv. It gives up on a key the schema does not name (ajv
 * might keep it), an undefined member, a non-plain object and any miss; the
 * copy and ajv then decide and report. Its output is the checked copy's:
 * members in the input's order, own enumerable keys only. It reads each
 * member by name in the schema's order (one literal when all are required,
 * as the zod walk builds), then counts the input's keys; when they come in
 * another order, the copy is rebuilt in theirs.
 */

// The CommonJS default export, however the bundler or Node hands it over.
const ucs2length = ((ucs2lengthModule as unknown as { default?: unknown }).default ?? ucs2lengthModule) as (text: string) => number;

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';
const JSON_TYPES: ReadonlySet<string> = new Set<JsonType>(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);

// Keywords that assert nothing with these compiler options (formats are annotations).
const ANNOTATIONS = new Set(['title', 'description', '$comment', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', 'format']);
const ASSERTIONS = new Set(['type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);
// The keywords a string or a number answers to besides its type (ajv applies a keyword only to its type).
const PRIMITIVE_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];
const BOUNDS = [
  ['minimum', '<'],
  ['maximum', '>'],
  ['exclusiveMinimum', '<='],
  ['exclusiveMaximum', '>='],
] as const;

type Node = Readonly<Record<string, unknown>>;

/**
 * A direct validator when every node of `schema` is in the subset above and
 * code can be generated; otherwise `undefined`, and the copy and ajv are all
 * there is.
 */
export function compileJsonSchemaDirect(schema: JsonSchema): DirectValidator | undefined {
  if (!isNode(schema) || schema.type !== 'object' || !canGenerateCode()) return undefined;
  const { $schema: _dialect, ...root } = schema;
  const program = createProgram<Node>(root);
  const output = emitNode(program, root, 'input', 0);
  return output === undefined ? undefined : linkProgram(program, output);
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** The types a node admits, or undefined when it is not in the subset. */
function typesOf(node: Node): ReadonlySet<JsonType> | undefined {
  const declared = node.type;
  const list: unknown[] = typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared : [];
  if (list.length === 0 || !list.every((type) => typeof type === 'string' && JSON_TYPES.has(type))) return undefined;
  return new Set(list as JsonType[]);
}

/**
 * Emit the code that checks the value in variable `input` against `node`;
 * returns the variable holding the copy, or undefined when the schema is
 * outside the subset (the whole compilation is then abandoned).
 */
function emitNode(program: Program<Node>, node: Node, input: string, depth: number): string | undefined {
  program.nodes += 1;
  if (depth > MAX_JSON_DEPTH || program.nodes > MAX_PROGRAM_NODES) return undefined;
  for (const keyword of Object.keys(node)) if (!ASSERTIONS.has(keyword) && !ANNOTATIONS.has(keyword)) return undefined;
  const allowed = allowedValues(node);
  if (allowed === null) return undefined;
  // With no type, only a set of primitives (`enum`, `const`) is in the subset.
  const types = node.type === undefined && allowed !== undefined ? new Set<JsonType>(['string', 'number', 'boolean', 'null']) : typesOf(node);
  if (types === undefined) return undefined;
  const { lines } = program;
  // A set of primitives and nothing a type's keywords could add: membership settles it.
  if (allowed !== undefined && node.type === undefined && PRIMITIVE_KEYWORDS.every((keyword) => node[keyword] === undefined)) {
    emitValueSet(program, allowed, input);
    return input;
  }
  // Membership only: the type branch below adds the size.
  if (allowed !== undefined) lines.push(`if (!${reference(program, allowed)}.has(${input})) return GIVE_UP;`);
  // A primitive is its own copy; an array or an object is copied into a variable of its own.
  const output = types.has('array') || types.has('object') ? fresh(program, 'out') : input;
  if (output !== input) lines.push(`let ${output} = ${input};`);
  // One case per admitted type, each applying that type's keywords (ajv applies them only to it).
  // A primitive's own code checks its type; an array's and an object's rely on the test.
  const cases: (readonly [test: string, emit: () => boolean, checksType: boolean])[] = [];
  if (types.has('null')) cases.push([`${input} === null`, () => (emitPrimitive(program, 'null', input), true), true]);
  if (types.has('boolean')) cases.push([`typeof ${input} === 'boolean'`, () => (emitPrimitive(program, 'boolean', input), true), true]);
  if (types.has('string')) cases.push([`typeof ${input} === 'string'`, () => emitString(program, node, input), true]);
  if (types.has('number') || types.has('integer')) cases.push([`typeof ${input} === 'number'`, () => emitNumber(program, node, input, !types.has('number')), true]);
  if (types.has('array')) cases.push([`Array.isArray(${input})`, () => emitArray(program, node, input, output, depth), false]);
  if (types.has('object')) cases.push([`typeof ${input} === 'object' && ${input} !== null && !Array.isArray(${input})`, () => emitObject(program, node, input, output, depth), false]);
  let ok = true;
  if (cases.length === 1) {
    const [test, emit, checksType] = cases[0] as (typeof cases)[number];
    if (!checksType) lines.push(`if (!(${test})) return GIVE_UP;`);
    ok = emit();
  } else {
    cases.forEach(([test, emit], index) => {
      lines.push(`${index === 0 ? '' : 'else '}if (${test}) {`);
      ok = emit() && ok;
      lines.push('}');
    });
    lines.push('else return GIVE_UP;');
  }
  return ok ? output : undefined;
}

/** `enum`/`const` as a set of primitives; undefined when absent, null when outside the subset. */
function allowedValues(node: Node): ReadonlySet<unknown> | undefined | null {
  if (node.enum === undefined && node.const === undefined) return undefined;
  if (node.enum !== undefined && node.const !== undefined) return null;
  const values = node.enum ?? [node.const];
  return Array.isArray(values) && values.length > 0 && values.every(isJsonPrimitive) ? new Set(values) : null;
}

function emitString(program: Program<Node>, node: Node, input: string): boolean {
  const { minLength, maxLength, pattern } = node;
  if ((minLength !== undefined && !isCount(minLength)) || (maxLength !== undefined && !isCount(maxLength))) return false;
  emitPrimitive(program, 'string', input);
  if (minLength !== undefined || maxLength !== undefined) {
    const length = fresh(program, 'length');
    program.lines.push(`const ${length} = ${reference(program, ucs2length)}(${input});`);
    if (minLength !== undefined) program.lines.push(`if (${length} < ${minLength}) return GIVE_UP;`);
    if (maxLength !== undefined) program.lines.push(`if (${length} > ${maxLength}) return GIVE_UP;`);
  }
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') return false;
    let expression: RegExp;
    try {
      expression = new RegExp(pattern, 'u'); // ajv's own construction (unicodeRegExp)
    } catch {
      return false;
    }
    program.lines.push(`if (!${reference(program, expression)}.test(${input})) return GIVE_UP;`);
  }
  return true;
}

function emitNumber(program: Program<Node>, node: Node, input: string, integer: boolean): boolean {
  emitPrimitive(program, 'number', input);
  if (integer) program.lines.push(`if (!Number.isInteger(${input})) return GIVE_UP;`);
  for (const [keyword, fails] of BOUNDS) {
    const bound = node[keyword];
    if (bound === undefined) continue;
    if (!isFiniteNumber(bound)) return false; // draft-04 boolean forms are not in the subset
    program.lines.push(`if (${input} ${fails} ${String(bound)}) return GIVE_UP;`);
  }
  return true;
}

function emitArray(program: Program<Node>, node: Node, input: string, output: string, depth: number): boolean {
  const { items, minItems, maxItems } = node;
  if (!isNode(items) || (minItems !== undefined && !isCount(minItems)) || (maxItems !== undefined && !isCount(maxItems))) return false;
  const { lines } = program;
  const length = fresh(program, 'length');
  const index = fresh(program, 'index');
  const item = fresh(program, 'item');
  // A proxy's `length` can be anything: only an array's own kind of length (a whole number, 0 or more) sizes the copy.
  lines.push(`const ${length} = ${input}.length;`, `if (!Number.isSafeInteger(${length}) || ${length} < 0 || ${length} > maxItems) return GIVE_UP;`);
  if (minItems !== undefined) lines.push(`if (${length} < ${minItems}) return GIVE_UP;`);
  if (maxItems !== undefined) lines.push(`if (${length} > ${maxItems}) return GIVE_UP;`);
  lines.push(`${output} = new Array(${length});`, `for (let ${index} = 0; ${index} < ${length}; ${index} += 1) {`, `const ${item} = ${input}[${index}];`);
  const checked = emitNode(program, items, item, depth + 1);
  if (checked === undefined) return false;
  lines.push(`${output}[${index}] = ${checked};`, '}', `size += ${length} + 2;`);
  return true;
}

function emitObject(program: Program<Node>, node: Node, input: string, output: string, depth: number): boolean {
  const properties = node.properties ?? {};
  const required = node.required ?? [];
  const additional = node.additionalProperties;
  if (!isNode(properties) || !Array.isArray(required) || (additional !== undefined && typeof additional !== 'boolean')) return false;
  const names = Object.keys(properties);
  // Assigning "__proto__" would set the copy's prototype; a required name with no schema is never seen.
  if (names.includes('__proto__') || !required.every((name) => typeof name === 'string' && Object.hasOwn(properties, name))) return false;
  const mandatory = new Set(required as string[]);
  const { lines } = program;
  // The checked copy's rules: a plain object, its own enumerable keys, in their order. With a plain
  // prototype that has no enumerable property (checked on entry), `for…in` visits exactly those.
  // The prototype is checked before any member is read (a class's getter never runs), but after
  // an `in` test of one, which reads nothing: V8 then knows the object's map and the check costs
  // nothing, where on its own it is a call (about 10 ns an object).
  const prototype = fresh(program, 'prototype');
  if (names.length > 0) lines.push(`${literal(names[0] as string)} in ${input};`);
  lines.push(`const ${prototype} = Object.getPrototypeOf(${input});`, `if (${prototype} !== Object.prototype && ${prototype} !== null) return GIVE_UP;`);
  // Each member is read by name and checked in the schema's order; the keys are counted after.
  const allRequired = names.length === mandatory.size;
  const present = allRequired ? String(names.length) : fresh(program, 'present');
  if (!allRequired) lines.push(`let ${present} = ${mandatory.size};`);
  const members: (readonly [name: string, value: string, checked: string])[] = [];
  for (const name of names) {
    const member = properties[name];
    if (!isNode(member)) return false;
    const value = fresh(program, 'value');
    const copy = mandatory.has(name) ? undefined : fresh(program, 'copy');
    lines.push(`const ${value} = ${input}[${literal(name)}];`);
    // An absent optional member is skipped; one present but undefined is caught by the count below.
    lines.push(copy === undefined ? `if (${value} === undefined) return GIVE_UP;` : `let ${copy}; if (${value} !== undefined) {`);
    const checked = emitNode(program, member, value, depth + 1);
    if (checked === undefined) return false;
    if (copy !== undefined) lines.push(`${copy} = ${checked};`, `${present} += 1;`);
    lines.push(`size += ${name.length * 6 + 4};`);
    if (copy !== undefined) lines.push('}');
    members.push([name, value, copy ?? checked]);
  }
  // With every member required, the copy is one literal: V8 allocates it at its final shape.
  if (allRequired) lines.push(`${output} = { ${members.map(([name, , checked]) => `${literal(name)}: ${checked}`).join(', ')} };`);
  else {
    lines.push(`${output} = {};`);
    for (const [name, value, checked] of members) lines.push(`${mandatory.has(name) ? '' : `if (${value} !== undefined) `}${output}[${literal(name)}] = ${checked};`);
  }
  // The keys must be exactly the members read (a key the schema does not name is refused or kept
  // by ajv, by `additionalProperties`; an undefined, inherited or non-enumerable member is
  // left to the copy and ajv), and the copy keeps the input's order: when the input's keys do not
  // come in the schema's, the members are put in theirs.
  const key = fresh(program, 'key');
  const seen = fresh(program, 'seen');
  const ordered = fresh(program, 'ordered');
  lines.push(`let ${seen} = 0;`, `let ${ordered} = true;`);
  if (allRequired) {
    // Every member is present once: in order when each key comes at its own position.
    lines.push(`for (const ${key} in ${input}) {`, `switch (${key}) {`);
    names.forEach((name, position) => lines.push(`case ${literal(name)}: if (${seen} !== ${position}) ${ordered} = false; break;`));
  } else {
    // Some members may be absent: in order when the positions only rise. A key whose member read as
    // undefined gives up: counted here but not as present, it could balance a member read by name
    // that no key names (a non-enumerable one), and the counts would agree on different keys.
    const last = fresh(program, 'last');
    lines.push(`let ${last} = -1;`, `for (const ${key} in ${input}) {`, `switch (${key}) {`);
    members.forEach(([name, value], position) => lines.push(`case ${literal(name)}: if (${value} === undefined) return GIVE_UP; if (${position} < ${last}) ${ordered} = false; ${last} = ${position}; break;`));
  }
  lines.push('default: return GIVE_UP;', '}', `${seen} += 1;`, '}');
  lines.push(`if (${seen} !== ${present}) return GIVE_UP;`);
  // The keys are enumerated again to reorder: each must again be a member of the copy, and as many.
  const reordered = fresh(program, 'reordered');
  const moved = fresh(program, 'moved');
  lines.push(`if (!${ordered}) {`, `const ${reordered} = {};`, `let ${moved} = 0;`, `for (const ${key} in ${input}) {`, `if (!Object.hasOwn(${output}, ${key})) return GIVE_UP;`);
  lines.push(`${reordered}[${key}] = ${output}[${key}];`, `${moved} += 1;`, '}', `if (${moved} !== ${present}) return GIVE_UP;`, `${output} = ${reordered};`, '}');
  // ajv reads a declared property through the copy's prototype too (`toString`, or a polluted
  // Object.prototype): where one is absent and the prototype answers for it, ajv decides.
  const inherited = (copy: Record<string, unknown>): boolean => names.some((name) => !Object.hasOwn(copy, name) && copy[name] !== undefined);
  if (!allRequired) lines.push(`if (${present} !== ${names.length} && ${reference(program, inherited)}(${output})) return GIVE_UP;`);
  lines.push('size += 2;');
  return true;
}
