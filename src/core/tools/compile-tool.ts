import { ToolDefinitionError } from '../errors/tool-errors.js';
import { toOpenAIStrictSchema, type OptionalNulls } from '../projection/to-openai-strict-schema.js';
import type { ToolActionClass } from '../policy/approval-types.js';
import type { PolicyToolView } from '../policy/policy-types.js';
import { buildPolicyView } from './build-policy-view.js';
import { checkBoundedSchema } from './check-bounded-schema.js';
import { checkDefinitionFields } from './check-definition-fields.js';
import { checkSchemaSize } from './check-schema-size.js';
import { compileJsonSchemaDirect } from './compile-json-schema-direct.js';
import { compileZodDirect } from './compile-zod-direct.js';
import { compileOnFirstUse, type DirectValidator } from './direct-program.js';
import { declaredPropertyNames } from './declared-property-names.js';
import { deepFreeze } from './deep-freeze.js';

export { deepFreeze } from './deep-freeze.js';
import { createValidator, createValidatorOnFirstUse, isStandardSchema, isValidJsonSchema, standardJsonSchema, type Validator } from './schema-validator.js';
import { TooCostlySchemaError, UnresolvedReferenceError } from './schema-check-cost.js';
import type { AnyToolDefinition, JournalTier, JsonSchema } from './tool-types.js';


/**
 * A definition checked and compiled once per tool version: validators,
 * the model-visible schema and the policy view. Registries share these, so
 * `registry.with()` and scopes never recompile.
 */
export interface CompiledTool {
  readonly definition: AnyToolDefinition;
  readonly name: string;
  readonly version: string | undefined;
  /** `name` or `name@version`. */
  readonly key: string;
  readonly description: string;
  readonly validateInput: Validator;
  /**
   * The one-walk accept path (check, copy and size bound together), compiled
   * on first use; `validateInput` decides whatever it does not accept.
   */
  readonly validateDirect: DirectValidator;
  readonly validateOutput: Validator | undefined;
  /** The model-visible input schema: configOnly names removed. Frozen. */
  readonly modelSchema: JsonSchema;
  readonly outputSchema: JsonSchema | undefined;
  /** Property names the input and output schemas declare: an error may name them. */
  readonly declaredNames: ReadonlySet<string>;
  readonly configOnly: ReadonlySet<string>;
  /**
   * Where OpenAI strict mode made an optional property required and
   * nullable: a model's `null` there means absent (stage 5 drops it).
   */
  readonly optionalNulls: OptionalNulls | undefined;
  readonly policyView: PolicyToolView;
  /** The governed action class, when the tool is governed by approval. */
  readonly actionClass: ToolActionClass | undefined;
  readonly journalTier: JournalTier;
  readonly timeoutMs: number | undefined;
  /**
   * The input validator is a Standard Schema, which usually returns a value it
   * built (zod, valibot); a compiled JSON Schema hands its input back. The
   * pipeline copies a caller's arguments only when the validator would not.
   */
  readonly rebuildsInput: boolean;
}

const compiled = new WeakMap<AnyToolDefinition, CompiledTool>();

/** Check and compile a definition; throws `ToolDefinitionError` naming the tool and the field. */
export function compileTool(definition: AnyToolDefinition): CompiledTool {
  const cached = compiled.get(definition);
  if (cached !== undefined) return cached;
  const tool = buildCompiledTool(definition);
  compiled.set(definition, tool);
  return tool;
}

function buildCompiledTool(definition: AnyToolDefinition): CompiledTool {
  const checked = checkDefinitionFields(definition);
  if (checked.type === 'invalid') throw new ToolDefinitionError(checked.name, checked.field, checked.problem);
  const { name } = checked;
  const fail = (field: string, problem: string, cause?: unknown): never => {
    throw new ToolDefinitionError(name, field, problem, cause);
  };
  const configOnly = new Set(definition.configOnly ?? []);
  const inputJson = resolveJsonSchema(definition, 'input', fail);
  if (inputJson.type !== undefined && inputJson.type !== 'object') fail('input', 'must describe an object');
  const outputJson = definition.output === undefined ? undefined : resolveJsonSchema(definition, 'output', fail);

  if (definition.schemaProfile === 'bounded') {
    const inputProblems = checkBoundedSchema(inputJson, 'input');
    if (inputProblems.length > 0) fail('input', `breaks the bounded schema profile (${inputProblems.slice(0, 3).join('; ')})`);
    if (outputJson !== undefined) {
      const outputProblems = checkBoundedSchema(outputJson, 'output');
      if (outputProblems.length > 0) fail('output', `breaks the bounded schema profile (${outputProblems.slice(0, 3).join('; ')})`);
    }
  }

  // A built-in's schemas are the product's own, and its tests compile every one of them: each is compiled when a call
  // first needs it. Compiled at registration, the fourteen took about 100 ms of every start of the CLI and the gateway,
  // most of it ajv compiling its meta-schema. Any other definition is compiled here, so that a schema that does not
  // compile refuses the tool, not its first call.
  const compile = definition.source === 'builtin' ? createValidatorOnFirstUse : createValidator;
  let validateInput: Validator;
  let validateOutput: Validator | undefined;
  try {
    validateInput = compile(definition.input);
  } catch (error) {
    return fail('input', schemaProblem(error), error);
  }
  try {
    validateOutput = definition.output === undefined ? undefined : compile(definition.output);
  } catch (error) {
    return fail('output', schemaProblem(error), error);
  }

  const { policyView, actionClass } = buildPolicyView(definition, name);

  if (configOnly.size > 0) {
    const problem = configOnlyRootProblem(inputJson);
    if (problem !== undefined) fail('configOnly', problem);
  }
  const modelSchema = deepFreeze(modelVisibleSchema(inputJson, configOnly));
  const strict = toOpenAIStrictSchema(modelSchema);
  return Object.freeze({
    definition,
    name,
    version: definition.version,
    key: definition.version === undefined ? name : `${name}@${definition.version}`,
    description: definition.description,
    validateInput,
    validateDirect: compileOnFirstUse(() => (isStandardSchema(definition.input) ? compileZodDirect(definition.input) : compileJsonSchemaDirect(definition.input as JsonSchema))),
    validateOutput,
    modelSchema,
    optionalNulls: strict.strict ? strict.optionalNulls : undefined,
    outputSchema: outputJson === undefined ? undefined : deepFreeze(stripDialect(outputJson)),
    declaredNames: new Set([...declaredPropertyNames(inputJson), ...declaredPropertyNames(outputJson)]),
    configOnly,
    policyView,
    actionClass,
    journalTier: definition.journal ?? (actionClass === undefined ? 'none' : 'effect'),
    timeoutMs: definition.timeoutMs,
    rebuildsInput: isStandardSchema(definition.input),
  });
}

function resolveJsonSchema(definition: AnyToolDefinition, io: 'input' | 'output', fail: (field: string, problem: string, cause?: unknown) => never): JsonSchema {
  const converted = findJsonSchema(definition, io, fail);
  const problem = checkSchemaSize(converted);
  return problem === undefined ? converted : fail(io, problem);
}

function findJsonSchema(definition: AnyToolDefinition, io: 'input' | 'output', fail: (field: string, problem: string, cause?: unknown) => never): JsonSchema {
  const schema = io === 'input' ? definition.input : definition.output;
  const explicit = io === 'input' ? definition.inputJsonSchema : definition.outputJsonSchema;
  if (explicit !== undefined) {
    // An explicit schema is never compiled (the Standard Schema validates), so check it is one.
    if (typeof explicit !== 'object' || explicit === null || !isValidJsonSchema(explicit)) return fail(`${io}JsonSchema`, 'is not a valid JSON Schema');
    return explicit;
  }
  if (schema === undefined) return fail(io, 'is missing');
  if (!isStandardSchema(schema)) return schema as JsonSchema;
  try {
    const converted = standardJsonSchema(schema, io);
    if (converted !== undefined) return converted;
  } catch (error) {
    return fail(io, 'cannot be converted to JSON Schema; give an explicit JSON Schema', error);
  }
  return fail(io, `has no JSON Schema for the model: use a schema implementing Standard JSON Schema or give ${io}JsonSchema`);
}

function stripDialect(schema: JsonSchema): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

// Root keywords through which a parameter can be declared or required elsewhere than the
// root's own `properties`/`required`, where configOnly names are removed.
const COMPOSING_KEYWORDS = ['$ref', '$dynamicRef', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'dependencies'];

/**
 * configOnly names are hidden from the root's `properties` and `required` only:
 * a root that composes (`$ref`, `allOf`, …) could still show or require one.
 */
function configOnlyRootProblem(schema: JsonSchema): string | undefined {
  const composing = COMPOSING_KEYWORDS.find((keyword) => Object.hasOwn(schema, keyword));
  if (composing !== undefined) return `needs a plain object input schema (its root uses "${composing}")`;
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return 'needs an input schema with root "properties"';
  return undefined;
}

/** Remove configOnly names from `properties` and `required`: a model can never supply them. */
function modelVisibleSchema(schema: JsonSchema, configOnly: ReadonlySet<string>): Record<string, unknown> {
  const visible = structuredClone(stripDialect(schema));
  if (configOnly.size === 0) return visible;
  const properties = visible.properties;
  if (typeof properties === 'object' && properties !== null) {
    for (const key of configOnly) delete (properties as Record<string, unknown>)[key];
  }
  if (Array.isArray(visible.required)) visible.required = visible.required.filter((key: unknown) => typeof key !== 'string' || !configOnly.has(key));
  return visible;
}

/** Why a schema did not compile, in the words of its refusal. */
function schemaProblem(error: unknown): string {
  return error instanceof TooCostlySchemaError || error instanceof UnresolvedReferenceError ? error.message : 'is not a valid JSON Schema';
}
