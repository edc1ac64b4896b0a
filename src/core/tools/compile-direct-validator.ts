import { MAX_JSON_DEPTH, sizeBoundOf } from '../dispatch/snapshot-json.js';

/**
 * A direct validator for zod 4 object schemas: one walk that checks the
 * arguments, builds the fresh value zod would build and bounds the value's
 * canonical size, so the pipeline pays one walk instead of two (zod's parse
 * plus its own size walk).
 *
 * It only ever ACCEPTS. For every node it handles itself (object, array,
 * string, number, boolean, null, enum, literal, optional, nullable, with no
 * checks, coercion or format), it reproduces zod's accept path exactly; every
 * other node (checks, formats, unions, records, transforms, defaults…) runs
 * through that node's own zod parser. Whenever the walk meets anything it
 * does not settle outright — a key the schema does not name, a missing or
 * undefined member, a value of the wrong type, a zod issue — it gives up and
 * returns `undefined`, and the pipeline validates with zod itself, which then
 * reports the issues. So a value it accepts is one zod accepts, with the same
 * output; a value it gives up on costs one partial walk more.
 *
 * Like zod's own object parser, the walk is generated code, specialised to the
 * schema: literal member names, inlined nesting. The only text taken from the
 * schema is member names, written as JSON string literals; everything else
 * (value sets, delegated nodes) is passed in by reference. Where code cannot
 * be generated (a Content Security Policy without `unsafe-eval`), there is no
 * direct validator and zod validates alone.
 *
 * The size bound equals `sizeBoundOf` over the input: an accepted value has no
 * key the schema does not visit.
 */
export interface DirectResult {
  /** The value zod's parse would return: fresh objects and arrays, members in the schema's order. */
  readonly value: unknown;
  /** Upper bound of the value's canonical UTF-8 size (see `sizeBoundOf`). */
  readonly sizeBound: number;
}

export type DirectValidator = (value: unknown) => DirectResult | undefined;

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

/** What the generated code returns when it gives up. */
const GIVE_UP: unique symbol = Symbol('give up');

/** A zod node the walk hands to zod: its parse, or GIVE_UP. */
type Delegate = (value: unknown) => unknown;

// A schema is compiled once per tool; beyond this many nodes the rest is left to zod.
const MAX_COMPILED_NODES = 4096;

/** The program being generated: its lines, the values it references, fresh names. */
interface Program {
  readonly lines: string[];
  readonly delegates: Delegate[];
  readonly valueSets: ReadonlySet<unknown>[];
  /** The nodes being compiled: a recursive schema (zod 4 getters) meets itself. */
  readonly open: Set<ZodInternals>;
  names: number;
  nodes: number;
}

let codeGeneration: boolean | undefined;

/** Whether this runtime lets code be generated; probed once. */
function canGenerateCode(): boolean {
  if (codeGeneration === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the probe for the generator below
      codeGeneration = typeof new Function('return 1') === 'function';
    } catch {
      codeGeneration = false;
    }
  }
  return codeGeneration;
}

/**
 * Compile a direct validator when `schema` is a zod 4 object schema and code
 * can be generated; otherwise `undefined`, and the schema's own validator is
 * all there is.
 */
export function compileDirectValidator(schema: unknown): DirectValidator | undefined {
  const root = zodInternals(schema);
  if (root === undefined || !isPlainNode(root, 'object') || !canGenerateCode()) return undefined;
  const program: Program = { lines: [], delegates: [], valueSets: [], open: new Set([root]), names: 0, nodes: 1 };
  const output = emitObject(program, root, 'input', 0);
  if (output === undefined) return undefined;
  const source = `return function directValidator(input) {\nlet size = 0;\n${program.lines.join('\n')}\nreturn { value: ${output}, sizeBound: size };\n};`;
  // Function, not eval: the generated code sees only its parameters, never this module's scope.
  let validate: (value: unknown) => DirectResult | typeof GIVE_UP;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from member names only, as JSON literals
    const generate = new Function('GIVE_UP', 'sizeBoundOf', 'delegates', 'valueSets', source) as (...values: unknown[]) => typeof validate;
    validate = generate(GIVE_UP, sizeBoundOf, program.delegates, program.valueSets);
  } catch {
    return undefined; // refused by the runtime: zod validates alone
  }
  return (value) => {
    const result = validate(value);
    return result === GIVE_UP ? undefined : result;
  };
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

function fresh(program: Program, prefix: string): string {
  program.names += 1;
  return `${prefix}${program.names}`;
}

/**
 * Emit the code that checks the value in variable `input` (at nesting
 * `depth`) against `node`; returns the variable holding zod's output for it.
 * Failing code returns GIVE_UP from the whole validator.
 */
function emitNode(program: Program, node: ZodInternals, input: string, depth: number): string {
  program.nodes += 1;
  if (depth > MAX_JSON_DEPTH || program.open.has(node) || program.nodes > MAX_COMPILED_NODES) return emitDelegate(program, node, input, depth);
  program.open.add(node);
  const output = emitPlainNode(program, node, input, depth) ?? emitDelegate(program, node, input, depth);
  program.open.delete(node);
  return output;
}

/** The code for a node the walk settles itself, or undefined when zod must. */
function emitPlainNode(program: Program, node: ZodInternals, input: string, depth: number): string | undefined {
  const { lines } = program;
  switch (node.def.type) {
    case 'object':
      return isPlainNode(node, 'object') ? emitObject(program, node, input, depth) : undefined;
    case 'array': {
      const element = zodInternals(node.def.element);
      return element !== undefined && isPlainNode(node, 'array') ? emitArray(program, element, input, depth) : undefined;
    }
    case 'string':
      if (!isPlainNode(node, 'string')) return undefined;
      lines.push(`if (typeof ${input} !== 'string') return GIVE_UP;`, `size += ${input}.length * 6 + 2;`);
      return input;
    case 'number':
      if (!isPlainNode(node, 'number')) return undefined;
      // zod refuses NaN and the infinities; the longest ECMAScript number form is 25 characters.
      lines.push(`if (typeof ${input} !== 'number' || !Number.isFinite(${input})) return GIVE_UP;`, 'size += 25;');
      return input;
    case 'boolean':
      if (!isPlainNode(node, 'boolean')) return undefined;
      lines.push(`if (typeof ${input} !== 'boolean') return GIVE_UP;`, 'size += 5;');
      return input;
    case 'null':
      if (!isPlainNode(node, 'null')) return undefined;
      lines.push(`if (${input} !== null) return GIVE_UP;`, 'size += 4;');
      return input;
    case 'enum':
    case 'literal': {
      // zod accepts exactly the members of its value set.
      if (node.values === undefined || (node.def.checks ?? []).length > 0 || ![...node.values].every(isJsonPrimitive)) return undefined;
      program.valueSets.push(node.values);
      lines.push(`if (!valueSets[${program.valueSets.length - 1}].has(${input})) return GIVE_UP;`, `size += sizeBoundOf(${input}, 0);`);
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

function emitObject(program: Program, node: ZodInternals, input: string, depth: number): string | undefined {
  const shape = node.def.shape ?? {};
  const keys = Object.keys(shape);
  // zod skips a "__proto__" member and never reads symbol keys: leave such shapes to zod.
  if (keys.includes('__proto__') || Object.getOwnPropertySymbols(shape).length > 0) return undefined;
  const { lines } = program;
  const output = fresh(program, 'out');
  const present = fresh(program, 'present');
  lines.push(`if (typeof ${input} !== 'object' || ${input} === null || Array.isArray(${input})) return GIVE_UP;`);
  lines.push(`const ${output} = {};`, `let ${present} = 0;`);
  for (const key of keys) {
    const member = zodInternals(shape[key]);
    if (member === undefined) return undefined;
    const optional = member.optin === 'optional' && member.optout === 'optional';
    // A default or a prefault puts a value where the key is absent: zod's business.
    if (!optional && member.optin !== undefined) return undefined;
    const literal = JSON.stringify(key);
    const value = fresh(program, 'value');
    // zod reads `input[key]` and counts a key as present when `key in input`; so does this.
    lines.push(`const ${value} = ${input}[${literal}];`);
    // Absent is fine only for an optional member; present but undefined is zod's call.
    lines.push(optional ? `if (${value} === undefined) { if (${literal} in ${input}) return GIVE_UP; } else {` : `if (${value} === undefined) return GIVE_UP;`, '{');
    const inner = optional && member.def.type === 'optional' && (member.def.checks ?? []).length === 0 ? zodInternals(member.def.innerType) : undefined;
    const checked = emitNode(program, inner ?? member, value, depth + 1);
    // Its quoted, escaped name and the colon and comma around it.
    lines.push(`${output}[${literal}] = ${checked};`, `size += ${key.length * 6 + 4};`, `${present} += 1;`, '}');
    if (optional) lines.push('}');
  }
  // A key the schema does not name (zod strips, refuses or keeps it, by mode) is left to zod. And
  // the enumerable keys must be exactly the members read: a member whose value came from elsewhere
  // (a non-enumerable or inherited property) is left to zod too, so the size bound stays exact.
  const seen = fresh(program, 'seen');
  const members = keys.map((key) => `case ${JSON.stringify(key)}:`).join(' ');
  const known = keys.length === 0 ? 'return GIVE_UP;' : `switch (key) { ${members} break; default: return GIVE_UP; }`;
  lines.push(`let ${seen} = 0;`, `for (const key in ${input}) {`, known, `${seen} += 1;`, '}');
  lines.push(`if (${seen} !== ${present}) return GIVE_UP;`, 'size += 2;');
  return output;
}

function emitArray(program: Program, element: ZodInternals, input: string, depth: number): string {
  const { lines } = program;
  const output = fresh(program, 'out');
  const length = fresh(program, 'length');
  const index = fresh(program, 'index');
  const item = fresh(program, 'item');
  lines.push(`if (!Array.isArray(${input})) return GIVE_UP;`, `const ${length} = ${input}.length;`, `const ${output} = new Array(${length});`);
  lines.push(`for (let ${index} = 0; ${index} < ${length}; ${index} += 1) {`, `const ${item} = ${input}[${index}];`);
  lines.push(`${output}[${index}] = ${emitNode(program, element, item, depth + 1)};`, '}', `size += ${length} + 2;`);
  return output;
}

/**
 * Any other node: its own zod parser decides, synchronously. Its input is
 * bounded like the rest (a non-finite number or too deep a value gives up,
 * as the size walk would refuse it); an issue, an undefined result or async
 * work gives up too.
 */
function emitDelegate(program: Program, node: ZodInternals, input: string, depth: number): string {
  program.delegates.push((value) => {
    let result: unknown;
    try {
      result = node.run({ value, issues: [] }, { async: false });
    } catch {
      return GIVE_UP; // zod throws when a synchronous parse meets async work
    }
    if (typeof result !== 'object' || result === null || result instanceof Promise) return GIVE_UP;
    const payload = result as { value: unknown; issues: readonly unknown[] };
    return payload.issues.length > 0 || payload.value === undefined ? GIVE_UP : payload.value;
  });
  const bound = fresh(program, 'bound');
  const output = fresh(program, 'out');
  program.lines.push(
    `const ${bound} = sizeBoundOf(${input}, ${depth});`,
    `if (${bound} !== ${bound}) return GIVE_UP;`, // NaN: not JSON the pipeline accepts
    `size += ${bound};`,
    `const ${output} = delegates[${program.delegates.length - 1}](${input});`,
    `if (${output} === GIVE_UP) return GIVE_UP;`,
  );
  return output;
}

function isJsonPrimitive(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}
