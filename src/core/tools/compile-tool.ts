import { ToolDefinitionError } from '../errors/tool-errors.js';
import { toOpenAIStrictSchema, type OptionalNulls } from '../projection/to-openai-strict-schema.js';
import { isToolName } from '../names/tool-name.js';
import { MAX_WIRE_NAME_LENGTH, wireToolName } from '../names/wire-tool-name.js';
import type { ToolActionClass } from '../policy/approval-types.js';
import type { PolicyToolView } from '../policy/policy-types.js';
import { checkBoundedSchema } from './check-bounded-schema.js';
import { checkSchemaSize } from './check-schema-size.js';
import { compileJsonSchemaDirect } from './compile-json-schema-direct.js';
import { compileZodDirect } from './compile-zod-direct.js';
import { compileOnFirstUse, type DirectValidator } from './direct-program.js';
import { declaredPropertyNames } from './declared-property-names.js';
import { deepFreeze } from './deep-freeze.js';

export { deepFreeze } from './deep-freeze.js';
import { createValidator, isStandardSchema, isValidJsonSchema, standardJsonSchema, type Validator } from './schema-validator.js';
import type { AnyToolDefinition, JournalTier, JsonSchema, ToolEffect, ToolRisk } from './tool-types.js';

// Semver 2.0.0, exact: no ranges, no leading `v`, no wildcards.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const MAX_TIMEOUT_MS = 60 * 60 * 1000;
const MAX_PERMISSIONS = 16;
const MAX_FIXED_ARGV = 16;

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
  const name: unknown = definition.name;
  if (!isToolName(name)) {
    throw new ToolDefinitionError(typeof name === 'string' ? name : '?', 'name', 'must match ^[a-z][a-z0-9_]{0,63}$');
  }
  const fail = (field: string, problem: string, cause?: unknown): never => {
    throw new ToolDefinitionError(name, field, problem, cause);
  };
  if (definition.version !== undefined && (typeof definition.version !== 'string' || !SEMVER.test(definition.version))) {
    fail('version', 'must be an exact SemVer version such as 1.2.0');
  }
  if (definition.version !== undefined && wireToolName(name, definition.version).length > MAX_WIRE_NAME_LENGTH) {
    fail('version', `makes the wire name "${wireToolName(name, definition.version)}" longer than ${MAX_WIRE_NAME_LENGTH} characters`);
  }
  if (typeof definition.description !== 'string' || definition.description.trim().length === 0) fail('description', 'must not be empty');
  if (typeof definition.dispatch !== 'function') fail('dispatch', 'must be a function');
  if (definition.timeoutMs !== undefined && !(Number.isFinite(definition.timeoutMs) && definition.timeoutMs >= 1 && definition.timeoutMs <= MAX_TIMEOUT_MS)) {
    fail('timeoutMs', 'must be between 1 ms and 1 hour');
  }
  const permissions = definition.permissions ?? [];
  if (!Array.isArray(permissions) || permissions.length > MAX_PERMISSIONS || permissions.some((entry) => typeof entry !== 'string' || entry.length === 0)) {
    fail('permissions', `must be at most ${MAX_PERMISSIONS} non-empty names`);
  }
  if (definition.configOnly !== undefined && !Array.isArray(definition.configOnly)) fail('configOnly', 'must be an array of parameter names');
  const configOnly = new Set(definition.configOnly ?? []);
  for (const entry of configOnly) if (typeof entry !== 'string' || entry.length === 0) fail('configOnly', 'must list non-empty parameter names');
  checkOneOf(definition.source, ['builtin', 'mcp', 'plugin'], 'source', fail);
  checkOneOf(definition.effect, ['read', 'write', 'execute', 'external'], 'effect', fail);
  checkOneOf(definition.risk, ['low', 'medium', 'high', 'critical'], 'risk', fail);
  checkOneOf(definition.journal, ['none', 'record', 'effect'], 'journal', fail);
  checkOneOf(definition.policy?.egress, ['http', 'search', 'mcp'], 'policy.egress', fail);
  checkOneOf(definition.schemaProfile, ['bounded'], 'schemaProfile', fail);
  checkOneOf(definition.delegatesTo, ['mcp'], 'delegatesTo', fail);
  const fixedArgv = definition.fixedArgv;
  if (fixedArgv !== undefined && !isFixedArgv(fixedArgv)) fail('fixedArgv', `must be 1 to ${MAX_FIXED_ARGV} non-empty strings`);
  for (const hook of ['isConcurrencySafe', 'policyTarget', 'renderContent', 'finalizeContent', 'presentCall', 'presentResult'] as const) {
    if (definition[hook] !== undefined && typeof definition[hook] !== 'function') fail(hook, 'must be a function');
  }

  const input = definition.input as unknown;
  // An arktype schema is a function carrying `~standard`.
  if ((typeof input !== 'object' && typeof input !== 'function') || input === null) fail('input', 'must be a Standard Schema or a JSON Schema object');
  for (const io of ['input', 'output'] as const) {
    const schema: unknown = definition[io];
    if ((typeof schema === 'object' || typeof schema === 'function') && schema !== null && '~standard' in schema && typeof (schema as { '~standard'?: { validate?: unknown } })['~standard']?.validate !== 'function') {
      fail(io, 'is a Standard Schema without a validate function');
    }
  }
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

  let validateInput: Validator;
  let validateOutput: Validator | undefined;
  try {
    validateInput = createValidator(definition.input);
  } catch (error) {
    return fail('input', 'is not a valid JSON Schema', error);
  }
  try {
    validateOutput = definition.output === undefined ? undefined : createValidator(definition.output);
  } catch (error) {
    return fail('output', 'is not a valid JSON Schema', error);
  }

  const policy = definition.policy ?? {};
  const effect: ToolEffect = definition.effect ?? deriveEffect(policy);
  const risk: ToolRisk = definition.risk ?? deriveRisk(effect);
  const actionClass = deriveActionClass(definition);
  const readOnly = definition.facts?.readOnly ?? (actionClass === undefined && effect === 'read');
  const policyView: PolicyToolView = Object.freeze({
    name,
    version: definition.version,
    source: definition.source ?? 'plugin',
    effect,
    risk,
    policy: Object.freeze({
      fsScoped: policy.fsScoped ?? false,
      fsWrite: policy.fsWrite ?? false,
      spawnsProcess: policy.spawnsProcess ?? false,
      egress: policy.egress,
      os: policy.os ?? false,
      requiresGate: policy.requiresGate ?? false,
    }),
    permissions: Object.freeze([...permissions]),
    readOnly,
    ...(fixedArgv === undefined ? {} : { fixedArgv: Object.freeze([...fixedArgv]) }),
    ...(definition.delegatesTo === undefined ? {} : { delegatesTo: definition.delegatesTo }),
  });

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

function isFixedArgv(argv: unknown): boolean {
  return Array.isArray(argv) && argv.length > 0 && argv.length <= MAX_FIXED_ARGV && argv.every((element) => typeof element === 'string' && element.length > 0);
}

function checkOneOf(value: unknown, allowed: readonly string[], field: string, fail: (field: string, problem: string) => never): void {
  if (value !== undefined && !allowed.includes(value as string)) fail(field, `must be one of ${allowed.join(', ')}`);
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

function deriveEffect(policy: NonNullable<AnyToolDefinition['policy']>): ToolEffect {
  if (policy.spawnsProcess === true) return 'execute';
  if (policy.fsWrite === true) return 'write';
  if (policy.egress !== undefined || policy.os === true) return 'external';
  return 'read';
}

function deriveRisk(effect: ToolEffect): ToolRisk {
  switch (effect) {
    case 'read':
      return 'low';
    case 'write':
    case 'external':
      return 'medium';
    case 'execute':
      return 'high';
  }
}

/**
 * Any egress → egress, fsWrite → fs_write, os → os, and spawnsProcess →
 * process only when the command is model-controlled (the tool exposes a
 * policy target); a pre-approved `git_status` that exposes none is not gated.
 * Egress comes first: an upstream MCP tool that writes files is another
 * program's write, which `accept-edits` (workspace writes) does not approve.
 */
function deriveActionClass(definition: AnyToolDefinition): ToolActionClass | undefined {
  const policy = definition.policy ?? {};
  if (policy.egress !== undefined) return 'egress';
  if (policy.fsWrite === true) return 'fs_write';
  if (policy.os === true) return 'os';
  if (policy.spawnsProcess === true && definition.policyTarget !== undefined) return 'process';
  return undefined;
}
