import { isToolName } from '../names/tool-name.js';
import { MAX_WIRE_NAME_LENGTH, wireToolName } from '../names/wire-tool-name.js';
import type { AnyToolDefinition } from './tool-types.js';

// Semver 2.0.0, exact: no ranges, no leading `v`, no wildcards.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const MAX_TIMEOUT_MS = 60 * 60 * 1000;
const MAX_PERMISSIONS = 16;
const MAX_FIXED_ARGV = 16;
const HOOKS = ['isConcurrencySafe', 'policyTarget', 'renderContent', 'finalizeContent', 'presentCall', 'presentResult'] as const;

export type DefinitionFieldsCheck =
  | { readonly type: 'valid'; readonly name: string }
  /** `name` is `?` when the name itself is not a string. */
  | { readonly type: 'invalid'; readonly name: string; readonly field: string; readonly problem: string };

/**
 * The fields of a definition that need no schema work: name, version,
 * description, dispatch, time limit, permissions, configOnly, the enumerated
 * facts, the hooks and the shape of its schemas. The first problem found wins.
 */
export function checkDefinitionFields(definition: AnyToolDefinition): DefinitionFieldsCheck {
  const name: unknown = definition.name;
  if (!isToolName(name)) return { type: 'invalid', name: typeof name === 'string' ? name : '?', field: 'name', problem: 'must match ^[a-z][a-z0-9_]{0,63}$' };
  const problem = findFieldProblem(definition, name);
  return problem === undefined ? { type: 'valid', name } : { type: 'invalid', name, field: problem[0], problem: problem[1] };
}

function findFieldProblem(definition: AnyToolDefinition, name: string): readonly [field: string, problem: string] | undefined {
  if (definition.version !== undefined && (typeof definition.version !== 'string' || !SEMVER.test(definition.version))) return ['version', 'must be an exact SemVer version such as 1.2.0'];
  if (definition.version !== undefined && wireToolName(name, definition.version).length > MAX_WIRE_NAME_LENGTH) {
    return ['version', `makes the wire name "${wireToolName(name, definition.version)}" longer than ${MAX_WIRE_NAME_LENGTH} characters`];
  }
  if (typeof definition.description !== 'string' || definition.description.trim().length === 0) return ['description', 'must not be empty'];
  if (typeof definition.dispatch !== 'function') return ['dispatch', 'must be a function'];
  if (definition.timeoutMs !== undefined && !(Number.isFinite(definition.timeoutMs) && definition.timeoutMs >= 1 && definition.timeoutMs <= MAX_TIMEOUT_MS)) {
    return ['timeoutMs', 'must be between 1 ms and 1 hour'];
  }
  const permissions = definition.permissions ?? [];
  if (!Array.isArray(permissions) || permissions.length > MAX_PERMISSIONS || permissions.some((entry) => typeof entry !== 'string' || entry.length === 0)) {
    return ['permissions', `must be at most ${MAX_PERMISSIONS} non-empty names`];
  }
  if (definition.configOnly !== undefined && !Array.isArray(definition.configOnly)) return ['configOnly', 'must be an array of parameter names'];
  for (const entry of new Set(definition.configOnly ?? [])) if (typeof entry !== 'string' || entry.length === 0) return ['configOnly', 'must list non-empty parameter names'];
  const enumerated = [
    ['source', definition.source, ['builtin', 'mcp', 'plugin']],
    ['effect', definition.effect, ['read', 'write', 'execute', 'external']],
    ['risk', definition.risk, ['low', 'medium', 'high', 'critical']],
    ['journal', definition.journal, ['none', 'record', 'effect']],
    ['policy.egress', definition.policy?.egress, ['http', 'search', 'mcp']],
    ['schemaProfile', definition.schemaProfile, ['bounded']],
    ['delegatesTo', definition.delegatesTo, ['mcp']],
  ] as const;
  for (const [field, value, allowed] of enumerated) if (value !== undefined && !(allowed as readonly string[]).includes(value)) return [field, `must be one of ${allowed.join(', ')}`];
  if (definition.fixedArgv !== undefined && !isFixedArgv(definition.fixedArgv)) return ['fixedArgv', `must be 1 to ${MAX_FIXED_ARGV} non-empty strings`];
  for (const hook of HOOKS) if (definition[hook] !== undefined && typeof definition[hook] !== 'function') return [hook, 'must be a function'];
  const input = definition.input as unknown;
  // An arktype schema is a function carrying `~standard`.
  if ((typeof input !== 'object' && typeof input !== 'function') || input === null) return ['input', 'must be a Standard Schema or a JSON Schema object'];
  for (const io of ['input', 'output'] as const) {
    const schema: unknown = definition[io];
    if ((typeof schema === 'object' || typeof schema === 'function') && schema !== null && '~standard' in schema && typeof (schema as { '~standard'?: { validate?: unknown } })['~standard']?.validate !== 'function') {
      return [io, 'is a Standard Schema without a validate function'];
    }
  }
  return undefined;
}

function isFixedArgv(argv: unknown): boolean {
  return Array.isArray(argv) && argv.length > 0 && argv.length <= MAX_FIXED_ARGV && argv.every((element) => typeof element === 'string' && element.length > 0);
}
