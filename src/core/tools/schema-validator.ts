import type { StandardSchemaV1 } from '@standard-schema/spec';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { formatIssuePath, scrubIssueMessage, type ValidationIssue } from '../errors/describe-issues.js';
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

// One compiler per draft, shared by every registry: compiled validators are cached per tool version.
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function compilerFor(schema: JsonSchema): Ajv | Ajv2020 {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const options = { strict: false, allErrors: false, validateSchema: true, coerceTypes: false, useDefaults: false } as const;
  if (dialect.includes('2020-12') || dialect.includes('2019-09')) return (draft2020 ??= new Ajv2020(options));
  return (draft07 ??= new Ajv(options));
}

/** Compile a JSON Schema once. Throws (from ajv) when the schema itself is invalid. */
export function compileJsonSchema(schema: JsonSchema): Validator {
  const compiled: ValidateFunction = compilerFor(schema).compile(schema as Record<string, unknown>);
  return (value) => {
    if (compiled(value)) return { ok: true, value };
    const issues = (compiled.errors ?? []).map((error) => ({
      path: formatIssuePath(error.instancePath.split('/').slice(1).map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))),
      message: scrubIssueMessage(error.message ?? 'is invalid'),
    }));
    return { ok: false, issues };
  };
}

export function createValidator(schema: ToolSchema): Validator {
  return isStandardSchema(schema) ? standardValidator(schema) : compileJsonSchema(schema);
}

/** The JSON Schema a Standard Schema describes, when it implements Standard JSON Schema. */
export function standardJsonSchema(schema: StandardSchemaV1, io: 'input' | 'output'): JsonSchema | undefined {
  const props = schema['~standard'] as StandardSchemaV1.Props & {
    readonly jsonSchema?: { readonly input: (options: { target: string }) => Record<string, unknown>; readonly output: (options: { target: string }) => Record<string, unknown> };
  };
  if (props.jsonSchema === undefined) return undefined;
  return props.jsonSchema[io]({ target: 'draft-2020-12' });
}
