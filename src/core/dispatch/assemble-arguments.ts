import { ToolArgsInvalidError } from '../errors/tool-errors.js';
import { dropOptionalNulls } from '../projection/to-openai-strict-schema.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import type { DispatchState, ResolvedDispatchState } from './dispatch-state.js';
import { measureParsedJson, snapshotJson, type JsonSnapshot } from './snapshot-json.js';

/**
 * Stage 5: the effective arguments, assembled before any argument-level
 * policy runs: model arguments → `inputMapping` → config-only values last
 * (config wins). A model can never supply a config-only parameter: such a
 * key is dropped from the model's arguments.
 */
export function assembleArguments(state: ResolvedDispatchState): ToolArgsInvalidError | undefined {
  const tool = state.tool;
  const raw = state.call.rawArguments;
  const parsed = parseModelArguments(raw);
  if (typeof parsed === 'string') return new ToolArgsInvalidError(tool.key, [], parsed);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return new ToolArgsInvalidError(tool.key, [], 'the arguments must be a JSON object');
  }
  const config = state.context.config;
  const mapping = config?.inputMapping;
  const configValues = config?.values;
  const stripConfigOnly = tool.configOnly.size > 0 && hasAnyKey(parsed as Record<string, unknown>, tool.configOnly);
  const plain = mapping === undefined && configValues === undefined && !stripConfigOnly;
  // A caller's object is foreign: it may change under us until stage 6 detaches it.
  const foreign = typeof raw !== 'string' && tool.rebuildsInput;
  if (plain) {
    // Measured in stage 6: by the direct validator's walk, which also checks and copies, or, where
    // that gives up, by `checkModelArguments`, as below.
    state.modelArgs = dropNulls(tool, parsed) as Readonly<Record<string, unknown>>;
    state.effectiveArgs = state.modelArgs;
    state.argsUnmeasured = true;
    state.argsForeign = foreign;
    return undefined;
  }
  // Mapped or configured values join the model's arguments, which are checked first.
  const snapshot = checkModelArguments(state, tool, parsed);
  if (!snapshot.ok) return new ToolArgsInvalidError(tool.key, [], snapshot.problem);
  state.modelArgs = dropNulls(tool, snapshot.value) as Readonly<Record<string, unknown>>;
  state.modelArgsSizeBound = snapshot.sizeBound;
  if (foreign) state.argsForeign = true;
  const effective: Record<string, unknown> = {};
  for (const key of Object.keys(state.modelArgs)) {
    if (!tool.configOnly.has(key)) defineEntry(effective, key, state.modelArgs[key]);
  }
  if (mapping !== undefined) {
    for (const [field, path] of Object.entries(mapping)) {
      const value = readPath(config?.state, path);
      if (value !== undefined) defineEntry(effective, field, value);
    }
  }
  if (configValues !== undefined) {
    for (const key of tool.configOnly) {
      if (Object.hasOwn(configValues, key)) defineEntry(effective, key, configValues[key]);
    }
  }
  // Mapped and configured values are the caller's: the same rule as a caller's model arguments.
  if (tool.rebuildsInput) {
    // Not walked here: their JSON form and size are checked with the digests.
    state.effectiveArgs = effective;
    state.argsForeign = true;
    state.argsUnchecked = true;
    return undefined;
  }
  const copied = snapshotJson(effective);
  if (!copied.ok) return new ToolArgsInvalidError(tool.key, [], copied.problem);
  state.effectiveArgs = copied.value;
  state.modelArgsSizeBound = copied.sizeBound;
  return undefined;
}

/**
 * The model's arguments checked (JSON form, depth) and measured without a
 * direct validator. JSON text parsed here is ours alone, and a caller's
 * object bound for a validator that rebuilds it (a Standard Schema) is
 * detached by that validator (stage 6): both are measured in place. A
 * caller's object bound for a JSON Schema validator, which hands its input
 * back, is copied.
 */
export function checkModelArguments(state: DispatchState, tool: CompiledTool, value: unknown): JsonSnapshot {
  return typeof state.call.rawArguments !== 'string' && !tool.rebuildsInput ? snapshotJson(value) : measureParsedJson(value);
}

/** OpenAI strict mode offers optional properties as required and nullable: such a `null` means absent. */
function dropNulls(tool: CompiledTool, args: unknown): unknown {
  // Not frozen here: stage 6 freezes the arguments whenever code other than the body will see them.
  return tool.optionalNulls === undefined ? args : dropOptionalNulls(tool.optionalNulls, args);
}

function parseModelArguments(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'string') return raw;
  if (raw.trim().length === 0) return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return 'the arguments are not valid JSON';
  }
}

function hasAnyKey(record: Readonly<Record<string, unknown>>, keys: ReadonlySet<string>): boolean {
  for (const key of keys) if (Object.hasOwn(record, key)) return true;
  return false;
}

function defineEntry(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Read a dotted path (`a.b.0.c`) from configuration state; own properties only. */
export function readPath(source: unknown, path: string): unknown {
  let node: unknown = source;
  for (const segment of path.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}
