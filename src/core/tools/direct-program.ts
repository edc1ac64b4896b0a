import { sizeBoundOf } from '../dispatch/snapshot-json.js';

/**
 * The generated program behind a direct validator (see
 * `compile-zod-direct.ts` and `compile-json-schema-direct.ts`): one walk,
 * specialised to one schema, that checks the arguments, builds the fresh
 * value the schema's own validator would leave, and bounds its canonical
 * size. It only ever ACCEPTS: whatever it does not settle outright (a
 * getter that throws included) it gives up on, and the schema's own
 * validator decides and reports.
 *
 * The only text taken from a schema is member names, written as JSON string
 * literals; everything else (value sets, patterns, delegated validators) is
 * passed in by reference. Where code cannot be generated (a Content Security
 * Policy without `unsafe-eval`), there is no direct validator.
 */
export interface DirectResult {
  /** The fresh value the schema's own validator would leave: objects and arrays copied. */
  readonly value: unknown;
  /** Upper bound of the value's canonical UTF-8 size, as `sizeBoundOf` computes it. */
  readonly sizeBound: number;
}

/**
 * The result, or `undefined` when the walk gave up and the schema's own
 * validator must decide. `owned`: the value is the pipeline's own (parsed
 * from JSON text here), so a value a delegated node hands back is never the
 * caller's; anything else, a caller's object, is copied before a delegated
 * node sees it.
 */
export type DirectValidator = (value: unknown, owned?: boolean, maxItems?: number) => DirectResult | undefined;

/** What generated code returns when it gives up. */
export const GIVE_UP: unique symbol = Symbol('give up');

/** A schema is compiled once per tool; beyond this many nodes it is left to its own validator. */
export const MAX_PROGRAM_NODES = 4096;

/** A program being generated: its lines, the values it references, fresh names. */
export interface Program<Node> {
  readonly lines: string[];
  readonly references: unknown[];
  /** The nodes being compiled: a recursive schema meets itself. */
  readonly open: Set<Node>;
  names: number;
  nodes: number;
}

export function createProgram<Node>(root: Node): Program<Node> {
  return { lines: [], references: [], open: new Set([root]), names: 0, nodes: 1 };
}

/** A variable name no other part of the program uses. */
export function fresh(program: Program<unknown>, prefix: string): string {
  program.names += 1;
  return `${prefix}${program.names}`;
}

/** An expression that reads `value` from the program's references. */
export function reference(program: Program<unknown>, value: unknown): string {
  program.references.push(value);
  return `references[${program.references.length - 1}]`;
}

/** A member name as a JavaScript string literal: JSON is a subset of JavaScript. */
export function literal(name: string): string {
  return JSON.stringify(name);
}

/** Check a JSON primitive in variable `input` and add its size bound (the formulas of `sizeBoundOf`). */
export function emitPrimitive(program: Program<unknown>, type: 'string' | 'number' | 'boolean' | 'null', input: string): void {
  switch (type) {
    case 'string':
      program.lines.push(`if (typeof ${input} !== 'string') return GIVE_UP;`, `size += ${input}.length * 6 + 2;`);
      return;
    case 'number':
      // A value that is not finite has no JSON form; the longest number form is 25 characters.
      program.lines.push(`if (typeof ${input} !== 'number' || !Number.isFinite(${input})) return GIVE_UP;`, 'size += 25;');
      return;
    case 'boolean':
      program.lines.push(`if (typeof ${input} !== 'boolean') return GIVE_UP;`, 'size += 5;');
      return;
    case 'null':
      program.lines.push(`if (${input} !== null) return GIVE_UP;`, 'size += 4;');
  }
}

/** Accept exactly the members of a set of JSON primitives. */
export function emitValueSet(program: Program<unknown>, values: ReadonlySet<unknown>, input: string): void {
  program.lines.push(`if (!${reference(program, values)}.has(${input})) return GIVE_UP;`, `size += sizeBoundOf(${input}, 0);`);
}

export function isJsonPrimitive(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

let codeGeneration: boolean | undefined;

/** Whether this runtime lets code be generated; probed once. */
export function canGenerateCode(): boolean {
  if (codeGeneration === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the probe for `linkProgram`
      codeGeneration = typeof new Function('return 1') === 'function';
    } catch {
      codeGeneration = false;
    }
  }
  return codeGeneration;
}

/**
 * A direct validator compiled on its first call, not when the registry is
 * built: generating and compiling the code costs about 0.1 ms a tool, which a
 * registry of a thousand tools (most of them never called) should not pay up
 * front. Where `compile` finds none, every call gives up.
 */
export function compileOnFirstUse(compile: () => DirectValidator | undefined): DirectValidator {
  let compiled: DirectValidator | undefined | null = null; // null: not compiled yet
  return (value, owned, maxItems) => {
    if (compiled === null) compiled = compile();
    return compiled === undefined ? undefined : compiled(value, owned, maxItems);
  };
}

/** Turn the program into a validator whose result is the variable `output`; undefined if the runtime refuses. */
export function linkProgram(program: Program<unknown>, output: string): DirectValidator | undefined {
  // An enumerable property on Object.prototype (pollution) shows through every object the
  // schema's own validator walks (ajv's additionalProperties, zod's catchall): leave that to them.
  const source = `return function directValidator(input, owned, maxItems) {\nfor (const inherited in {}) return GIVE_UP;\nlet size = 0;\n${program.lines.join('\n')}\nreturn { value: ${output}, sizeBound: size };\n};`;
  let validate: (value: unknown, owned: boolean, maxItems: number) => DirectResult | typeof GIVE_UP;
  try {
    // Function, not eval: the generated code sees only its parameters, never this module's scope.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- only member names (as JSON literals) and checked numbers come from a schema
    const generate = new Function('GIVE_UP', 'sizeBoundOf', 'references', source) as (...values: unknown[]) => typeof validate;
    validate = generate(GIVE_UP, sizeBoundOf, program.references);
  } catch {
    return undefined;
  }
  return (value, owned, maxItems) => {
    let result: DirectResult | typeof GIVE_UP;
    try {
      // An array longer than the arguments may hold gives up before its walk (`maxJsonItems`).
      result = validate(value, owned === true, maxItems ?? Number.MAX_SAFE_INTEGER);
    } catch {
      // A getter or a proxy's trap threw: the schema's own validator meets the same value and decides.
      return undefined;
    }
    return result === GIVE_UP ? undefined : result;
  };
}
