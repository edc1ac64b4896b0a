import type { StandardSchemaV1 } from '@standard-schema/spec';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { formatIssuePath, scrubIssueMessage, type ValidationIssue } from '../errors/describe-issues.js';
import { CHECK_COST_CEILING, schemaCheckCost, TooCostlySchemaError } from './schema-check-cost.js';
import type { JsonSchema, ToolSchema } from './tool-types.js';

/** The result of validating a value: the (possibly transformed) value, or secret-free issues. */
export type ValidationResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/** Synchronous when the schema is; a Standard Schema may validate asynchronously. */
export type Validator = (value: unknown) => ValidationResult | Promise<ValidationResult>;

export function isStandardSchema(schema: ToolSchema): schema is StandardSchemaV1 {
  return (typeof schema === 'object' || typeof schema === 'function') && schema !== null && '~standard' in schema;
}

function fromStandardResult(result: StandardSchemaV1.Result<unknown>): ValidationResult {
  if (result.issues === undefined) return { ok: true, value: result.value };
  return {
    ok: false,
    issues: result.issues.map((issue) => ({ path: formatIssuePath(issue.path), message: scrubIssueMessage(issue.message) })),
  };
}

function standardValidator(schema: StandardSchemaV1): Validator {
  const validate = schema['~standard'].validate;
  return (value) => {
    const result = validate(value);
    return result instanceof Promise ? result.then(fromStandardResult) : fromStandardResult(result);
  };
}

/**
 * The compilers, shared by every registry (compiled validators are cached
 * per tool version): one per draft, and per whether a schema is checked
 * against its dialect's meta-schema as it is compiled. Every schema from
 * outside is checked; the product's own, tested with that check, are not
 * (`trusted`), so a start that calls only built-ins never compiles the
 * meta-schema (about 50 ms).
 */
const compilers = new Map<string, Ajv | Ajv2019 | Ajv2020>();

function compilerFor(schema: JsonSchema, trusted = false): Ajv | Ajv2019 | Ajv2020 {
  const draft = draftOf(schema);
  const key = `${draft}${trusted ? ', trusted' : ''}`;
  let compiler = compilers.get(key);
  if (compiler === undefined) {
    // `format` is an annotation here (the 2020-12 default): no format vocabulary is bundled, so none is asserted.
    // ajv writes a referenced schema without references of its own out again at each `$ref` to it (`inlineRefs`):
    // a definition of 300 properties named from 300 properties, 18 KB, took 40 s and 1.2 GB to compile. A schema
    // from outside has each referenced schema compiled once, as a function its references call.
    compiler = compilerOfDraft(draft, { strict: false, allErrors: false, validateSchema: !trusted, validateFormats: false, coerceTypes: false, useDefaults: false, inlineRefs: trusted });
    compilers.set(key, compiler);
  }
  return compiler;
}

/** The drafts a tool's JSON Schema is judged by. */
export type JsonSchemaDraft = 'draft-07' | '2019-09' | '2020-12';

/** The draft its `$schema` names; draft-07, ajv's own, when it names none of the others. */
export function draftOf(schema: JsonSchema): JsonSchemaDraft {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  return dialect.includes('2020-12') ? '2020-12' : dialect.includes('2019-09') ? '2019-09' : 'draft-07';
}

/** An ajv compiler of one draft: each reads its own keywords (`items` as an array in 2019-09, `prefixItems` in 2020-12). */
export function compilerOfDraft(draft: JsonSchemaDraft, options: Options): Ajv | Ajv2019 | Ajv2020 {
  return draft === '2020-12' ? new Ajv2020(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options);
}

/**
 * The most checks of one value's nodes against schema objects that a
 * validation may cost. ajv's work on a value is at most its number of nodes
 * times the schema's cost per node (schema-check-cost.ts), and a failing
 * alternative of a union costs it about a microsecond: about half a second.
 */
export const MAX_VALUE_CHECKS = 500_000;

/**
 * Compile a JSON Schema once. Throws (from ajv) when the schema itself is
 * invalid; `trusted` skips the check against the meta-schema (the product's
 * own schemas, whose tests compile them with it).
 *
 * Any other schema is also costed: one whose check of a single node could
 * reach `CHECK_COST_CEILING` (unions multiplied level after level, a schema
 * applied to its own value in a loop, a reference that cannot be followed
 * here) is refused as it compiles, and a value whose nodes times that cost
 * pass `MAX_VALUE_CHECKS` is refused without being checked: ajv's work on
 * the event loop is bounded before it starts.
 */
export function compileJsonSchema(schema: JsonSchema, trusted = false): Validator {
  const costPerNode = trusted ? 1 : schemaCheckCost(schema);
  if (costPerNode >= CHECK_COST_CEILING) throw new TooCostlySchemaError();
  const compiled: ValidateFunction = compilerFor(schema, trusted).compile(schema as Record<string, unknown>);
  // A value of up to this many nodes is checked whatever it is; a costlier schema counts them first.
  const mostNodes = Math.floor(MAX_VALUE_CHECKS / costPerNode);
  return (value) => {
    if (costPerNode > 1 && exceedsNodes(value, mostNodes)) {
      const message = `is too costly to check against its schema: more than ${mostNodes.toLocaleString('en-US')} values, each checked against up to ${costPerNode.toLocaleString('en-US')} schemas`;
      return { ok: false, issues: [{ path: '', message }] };
    }
    if (compiled(value)) return { ok: true, value };
    const issues = (compiled.errors ?? []).map((error) => ({
      path: formatIssuePath(error.instancePath.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))),
      message: scrubIssueMessage(error.message ?? 'is invalid'),
    }));
    return { ok: false, issues };
  };
}

/**
 * Characters of a string (or a member's name) that count as one more node:
 * a check of its length (`maxLength`, ajv counting code points) or of its
 * equality reads all of it, and 1,000 characters take about as long as a
 * check. Counted as one node, a string of 60,000 characters under 131,070
 * checks held the event loop 7.5 s.
 */
const CHARACTERS_PER_NODE = 1_024;

/** Whether `value` holds more than `limit` nodes (objects, arrays and primitives, long strings and names more); stops counting past it. */
function exceedsNodes(value: unknown, limit: number): boolean {
  const stack: unknown[] = [value];
  let nodes = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    nodes += typeof node === 'string' ? 1 + Math.floor(node.length / CHARACTERS_PER_NODE) : 1;
    if (nodes > limit) return true;
    if (typeof node === 'object' && node !== null) {
      for (const [name, child] of Object.entries(node)) {
        nodes += Math.floor(name.length / CHARACTERS_PER_NODE);
        stack.push(child);
      }
    }
  }
  return false;
}

/** Whether a JSON Schema is itself valid against its dialect's meta-schema. */
export function isValidJsonSchema(schema: JsonSchema): boolean {
  try {
    return compilerFor(schema).validateSchema(schema) === true;
  } catch {
    return false;
  }
}

export function createValidator(schema: ToolSchema, trusted = false): Validator {
  return isStandardSchema(schema) ? standardValidator(schema) : compileJsonSchema(schema, trusted);
}

/**
 * The validator of one of the product's own schemas (`trusted`), created
 * when it is first called. A schema that does not compile then fails every
 * value it is asked about, as a typed refusal of the call: an input is
 * refused before the body runs, and an output fails a call whose receipt
 * still settles its claim, where a throw there would leave the claim of an
 * effect that ran open.
 */
export function createValidatorOnFirstUse(schema: ToolSchema): Validator {
  let validate: Validator | undefined;
  return (value) => {
    if (validate === undefined) {
      try {
        validate = createValidator(schema, true);
      } catch {
        validate = () => ({ ok: false, issues: [{ path: '', message: "does not match the tool's schema, which does not compile" }] });
      }
    }
    return validate(value);
  };
}

/** The JSON Schema a Standard Schema describes, when it implements Standard JSON Schema. */
export function standardJsonSchema(schema: StandardSchemaV1, io: 'input' | 'output'): JsonSchema | undefined {
  const props = schema['~standard'] as StandardSchemaV1.Props & {
    readonly jsonSchema?: { readonly input: (options: { target: string }) => Record<string, unknown>; readonly output: (options: { target: string }) => Record<string, unknown> };
  };
  if (props.jsonSchema === undefined) return undefined;
  return props.jsonSchema[io]({ target: 'draft-2020-12' });
}
