import { detachJson, MAX_JSON_DEPTH } from '../dispatch/snapshot-json.js';
import { canGenerateCode, createProgram, emitPrimitive, emitValueSet, fresh, GIVE_UP, isJsonPrimitive, linkProgram, literal, MAX_PROGRAM_NODES, reference, type DirectValidator, type Program } from './direct-program.js';

/**
 * The direct validator for a zod 4 object schema (see direct-program.ts):
 * one generated walk instead of zod's parse plus the pipeline's size walk.
 *
 * For every node it handles itself (object, array, string, number, boolean,
 * null, enum, literal, optional, nullable, with no checks, coercion or
 * format), it reproduces zod's accept path exactly: zod's output, members in
 * the schema's order. Every other node (checks, formats, unions, records,
 * transforms…) runs through that node's own zod parser. It gives up on a key
 * the schema does not name, a missing or undefined member, a value of the
 * wrong type and any zod issue; zod then validates the whole value and
 * reports. Like zod's own object parser, it is generated code: literal member
 * names, nesting inlined.
 */

/** The slice of zod 4's internals (`schema._zod`) this reads: the core shared by zod and zod/mini. */
interface ZodInternals {
  readonly def: {
    readonly type: string;
    readonly checks?: readonly unknown[];
    readonly coerce?: boolean;
    readonly shape?: Readonly<Record<string, unknown>>;
    readonly element?: unknown;
    readonly innerType?: unknown;
  };
  readonly traits: ReadonlySet<string>;
  readonly optin?: string;
  readonly optout?: string;
  readonly values?: ReadonlySet<unknown>;
  run(payload: { value: unknown; issues: unknown[] }, context: { readonly async: false }): unknown;
}

/**
 * A direct validator when `schema` is a zod 4 object schema and code can be
 * generated; otherwise `undefined`, and zod is all there is.
 */
export function compileZodDirect(schema: unknown): DirectValidator | undefined {
  const root = zodInternals(schema);
  if (root === undefined || !isPlainNode(root, 'object') || !canGenerateCode()) return undefined;
  const program = createProgram(root);
  const output = emitObject(program, root, 'input', 0);
  return output === undefined ? undefined : linkProgram(program, output);
}

function zodInternals(schema: unknown): ZodInternals | undefined {
  if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null) return undefined;
  const internals = (schema as { _zod?: unknown })._zod;
  if (typeof internals !== 'object' || internals === null) return undefined;
  const candidate = internals as Partial<ZodInternals>;
  const valid = typeof candidate.def === 'object' && candidate.def !== null && typeof candidate.def.type === 'string' && candidate.traits instanceof Set && typeof candidate.run === 'function';
  return valid ? (candidate as ZodInternals) : undefined;
}

/** A node of `type` whose parse is the whole story: no checks (a format schema is its own check), no coercion. */
function isPlainNode(node: ZodInternals, type: string): boolean {
  return node.def.type === type && (node.def.checks ?? []).length === 0 && !node.traits.has('$ZodCheck') && node.def.coerce !== true;
}

/**
 * Emit the code that checks the value in variable `input` (at nesting
 * `depth`) against `node`; returns the variable holding zod's output for it.
 * Failing code returns GIVE_UP from the whole validator.
 */
function emitNode(program: Program<ZodInternals>, node: ZodInternals, input: string, depth: number): string {
  program.nodes += 1;
  if (depth > MAX_JSON_DEPTH || program.open.has(node) || program.nodes > MAX_PROGRAM_NODES) return emitDelegate(program, node, input, depth);
  program.open.add(node);
  const output = emitPlainNode(program, node, input, depth) ?? emitDelegate(program, node, input, depth);
  program.open.delete(node);
  return output;
}

/** The code for a node the walk settles itself, or undefined when zod must. */
function emitPlainNode(program: Program<ZodInternals>, node: ZodInternals, input: string, depth: number): string | undefined {
  const { lines } = program;
  switch (node.def.type) {
    case 'object':
      return isPlainNode(node, 'object') ? emitObject(program, node, input, depth) : undefined;
    case 'array': {
      const element = zodInternals(node.def.element);
      return element !== undefined && isPlainNode(node, 'array') ? emitArray(program, element, input, depth) : undefined;
    }
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      // zod's number refuses NaN and the infinities, as the primitive check does.
      if (!isPlainNode(node, node.def.type)) return undefined;
      emitPrimitive(program, node.def.type, input);
      return input;
    case 'enum':
    case 'literal': {
      // zod accepts exactly the members of its value set.
      if (node.values === undefined || (node.def.checks ?? []).length > 0 || ![...node.values].every(isJsonPrimitive)) return undefined;
      emitValueSet(program, node.values, input);
      return input;
    }
    case 'nullable': {
      const inner = zodInternals(node.def.innerType);
      if (inner === undefined || (node.def.checks ?? []).length > 0) return undefined;
      const output = fresh(program, 'out');
      lines.push(`let ${output} = null;`, `if (${input} === null) size += 4;`, 'else {');
      lines.push(`${output} = ${emitNode(program, inner, input, depth)};`, '}');
      return output;
    }
    default:
      return undefined;
  }
}

function emitObject(program: Program<ZodInternals>, node: ZodInternals, input: string, depth: number): string | undefined {
  const shape = node.def.shape ?? {};
  const keys = Object.keys(shape);
  // zod skips a "__proto__" member and never reads symbol keys: leave such shapes to zod.
  if (keys.includes('__proto__') || Object.getOwnPropertySymbols(shape).length > 0) return undefined;
  // Every member is vetted before any line is written: a shape left to zod leaves no code behind.
  const members: { readonly key: string; readonly node: ZodInternals; readonly optional: boolean }[] = [];
  for (const key of keys) {
    const member = zodInternals(shape[key]);
    if (member === undefined) return undefined;
    const optional = member.optin === 'optional' && member.optout === 'optional';
    // A default or a prefault puts a value where the key is absent: zod's business.
    if (!optional && member.optin !== undefined) return undefined;
    const inner = optional && member.def.type === 'optional' && (member.def.checks ?? []).length === 0 ? zodInternals(member.def.innerType) : undefined;
    members.push({ key, node: inner ?? member, optional });
  }
  const { lines } = program;
  const output = fresh(program, 'out');
  lines.push(`if (typeof ${input} !== 'object' || ${input} === null || Array.isArray(${input})) return GIVE_UP;`);
  // With every member required, the output is one literal built once every member is checked: V8
  // allocates it at its final shape instead of adding one property at a time.
  const allRequired = members.every((member) => !member.optional);
  const present = allRequired ? String(members.length) : fresh(program, 'present');
  if (!allRequired) lines.push(`const ${output} = {};`, `let ${present} = 0;`);
  const entries: string[] = [];
  for (const { key, node: member, optional } of members) {
    const name = literal(key);
    const value = fresh(program, 'value');
    // zod reads `input[key]` and counts a key as present when `key in input`; so does this.
    lines.push(`const ${value} = ${input}[${name}];`);
    // Absent is fine only for an optional member; present but undefined is zod's call.
    lines.push(optional ? `if (${value} === undefined) { if (${name} in ${input}) return GIVE_UP; } else {` : `if (${value} === undefined) return GIVE_UP;`);
    const checked = emitNode(program, member, value, depth + 1);
    if (allRequired) entries.push(`${name}: ${checked}`);
    else lines.push(`${output}[${name}] = ${checked};`, `${present} += 1;`);
    // Its quoted, escaped name and the colon and comma around it.
    lines.push(`size += ${key.length * 6 + 4};`);
    if (optional) lines.push('}');
  }
  if (allRequired) lines.push(`const ${output} = { ${entries.join(', ')} };`);
  // A key the schema does not name (zod strips, refuses or keeps it, by mode) is left to zod. And
  // the enumerable keys must be exactly the members read: a member whose value came from elsewhere
  // (a non-enumerable or inherited property) is left to zod too, so the size bound stays exact.
  const seen = fresh(program, 'seen');
  const cases = keys.map((key) => `case ${literal(key)}:`).join(' ');
  const known = keys.length === 0 ? 'return GIVE_UP;' : `switch (key) { ${cases} break; default: return GIVE_UP; }`;
  lines.push(`let ${seen} = 0;`, `for (const key in ${input}) {`, known, `${seen} += 1;`, '}');
  lines.push(`if (${seen} !== ${present}) return GIVE_UP;`, 'size += 2;');
  return output;
}

function emitArray(program: Program<ZodInternals>, element: ZodInternals, input: string, depth: number): string {
  const { lines } = program;
  const output = fresh(program, 'out');
  const length = fresh(program, 'length');
  const index = fresh(program, 'index');
  const item = fresh(program, 'item');
  // A proxy's `length` can be anything: only an array's own kind of length (a whole number, 0 or more) sizes the copy.
  lines.push(`if (!Array.isArray(${input})) return GIVE_UP;`, `const ${length} = ${input}.length;`, `if (!Number.isSafeInteger(${length}) || ${length} < 0 || ${length} > maxItems) return GIVE_UP;`, `const ${output} = new Array(${length});`);
  lines.push(`for (let ${index} = 0; ${index} < ${length}; ${index} += 1) {`, `const ${item} = ${input}[${index}];`);
  lines.push(`${output}[${index}] = ${emitNode(program, element, item, depth + 1)};`, '}', `size += ${length} + 2;`);
  return output;
}

/**
 * Any other node: its own zod parser decides, synchronously. Its input is
 * bounded like the rest (a non-finite number or too deep a value gives up,
 * as the size walk would refuse it); an issue, an undefined result or async
 * work gives up too. A node that hands its input back (`z.any()`,
 * `z.unknown()`, the unknown keys of `z.looseObject`) would hand the
 * caller's own object to policy, the approver and the body, each reading it
 * again: a getter, a proxy or a `toJSON` could then show each of them
 * another value. So a caller's object is copied to plain JSON first (read
 * once, its copy judged and run); where it has no plain JSON form, the walk
 * gives up and the copy before the full validator refuses it.
 */
function emitDelegate(program: Program<ZodInternals>, node: ZodInternals, input: string, depth: number): string {
  const delegate = (value: unknown): unknown => {
    let result: unknown;
    try {
      result = node.run({ value, issues: [] }, { async: false });
    } catch {
      return GIVE_UP; // zod throws when a synchronous parse meets async work
    }
    if (typeof result !== 'object' || result === null || result instanceof Promise) return GIVE_UP;
    const payload = result as { value: unknown; issues: readonly unknown[] };
    return payload.issues.length > 0 || payload.value === undefined ? GIVE_UP : payload.value;
  };
  const bound = fresh(program, 'bound');
  const output = fresh(program, 'out');
  const detached = fresh(program, 'detached');
  const copied = fresh(program, 'copied');
  program.lines.push(
    `let ${detached} = ${input};`,
    `if (!owned && typeof ${input} === 'object' && ${input} !== null) {`,
    `const ${copied} = ${reference(program, detachJson)}(${input}, ${depth}, maxItems);`,
    `if (${copied} === undefined) return GIVE_UP;`,
    `${detached} = ${copied}.value;`,
    '}',
    `const ${bound} = sizeBoundOf(${detached}, ${depth});`,
    `if (${bound} !== ${bound}) return GIVE_UP;`, // NaN: not JSON the pipeline accepts
    `size += ${bound};`,
    `const ${output} = ${reference(program, delegate)}(${detached});`,
    `if (${output} === GIVE_UP) return GIVE_UP;`,
  );
  return output;
}
