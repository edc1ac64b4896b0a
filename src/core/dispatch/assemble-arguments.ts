import { ToolArgsInvalidError } from '../errors/tool-errors.js';
import { dropOptionalNulls } from '../projection/to-openai-strict-schema.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import type { DispatchState, ResolvedDispatchState } from './dispatch-state.js';
import { maxJsonItems, measureParsedJson, snapshotJson, type JsonSnapshot } from './snapshot-json.js';

/**
 * Stage 5's value: the effective arguments, and how far they are already
 * checked, which decides what stage 6 still has to do.
 *
 * - `unmeasured`: the plain path, the model's arguments as given, left for
 *   the tool's direct validator to check, copy and measure in one walk.
 *   `foreign` when they are a caller's object bound for a rebuilding
 *   validator, which may change under us until stage 6 detaches it.
 * - `measured`: mapped or configured values joined to checked model
 *   arguments, all copied and measured here; nothing shared with the caller.
 * - `unchecked`: mapped or configured values bound for a rebuilding
 *   validator, never walked (the validator rebuilds them anyway): the
 *   caller's, and their JSON form and size are checked with the digests.
 *   `sizeBound` covers the model's part only.
 */
export type AssembledArguments =
  | { readonly kind: 'unmeasured'; readonly value: Readonly<Record<string, unknown>>; readonly foreign: boolean }
  | { readonly kind: 'measured'; readonly value: unknown; readonly sizeBound: number }
  | { readonly kind: 'unchecked'; readonly value: Readonly<Record<string, unknown>>; readonly sizeBound: number };

/**
 * Stage 5: the effective arguments, assembled before any argument-level
 * policy runs: model arguments → `inputMapping` → config-only values last
 * (config wins). A model can never supply a config-only parameter: such a
 * key is dropped from the model's arguments.
 */
export function assembleArguments(state: Pick<ResolvedDispatchState, 'tool' | 'call' | 'context'> & Partial<Pick<ResolvedDispatchState, 'snapshot'>>): AssembledArguments | ToolArgsInvalidError {
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
  if (mapping === undefined && configValues === undefined && !stripConfigOnly) {
    // Measured in stage 6: by the direct validator's walk, which also checks and copies, or, where
    // that gives up, by `checkModelArguments`, as below.
    return { kind: 'unmeasured', value: dropNulls(tool, parsed) as Readonly<Record<string, unknown>>, foreign: typeof raw !== 'string' && tool.rebuildsInput };
  }
  // Mapped or configured values join the model's arguments, which are checked first.
  const snapshot = checkModelArguments(state, parsed);
  if (!snapshot.ok) return new ToolArgsInvalidError(tool.key, [], snapshot.problem);
  const modelArgs = dropNulls(tool, snapshot.value) as Readonly<Record<string, unknown>>;
  const effective: Record<string, unknown> = {};
  for (const key of Object.keys(modelArgs)) {
    if (!tool.configOnly.has(key)) defineEntry(effective, key, modelArgs[key]);
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
  if (tool.rebuildsInput) return { kind: 'unchecked', value: effective, sizeBound: snapshot.sizeBound };
  const copied = snapshotJson(effective, maxItemsOf(state));
  if (!copied.ok) return new ToolArgsInvalidError(tool.key, [], copied.problem);
  return { kind: 'measured', value: copied.value, sizeBound: copied.sizeBound };
}

/**
 * The model's arguments checked (JSON form, depth) and measured without a
 * direct validator. JSON text parsed here is ours alone: measured in place.
 * A caller's object is copied, whatever validator follows: one that hands
 * its input back (a JSON Schema) would keep it, and one that rebuilds it
 * (a Standard Schema) still hands back what it passes through unchanged
 * (`z.any()`, a loose object's unknown keys), where a getter, a proxy or a
 * `toJSON` could show policy, the approver and the body each another value.
 */
export function checkModelArguments(state: Pick<DispatchState, 'call'> & Partial<Pick<DispatchState, 'snapshot'>>, value: unknown): JsonSnapshot {
  return typeof state.call.rawArguments !== 'string' ? snapshotJson(value, maxItemsOf(state)) : measureParsedJson(value);
}

/** The longest array a caller's arguments within the registry's `maxInputBytes` can hold (`maxJsonItems`). */
export function maxItemsOf(state: Partial<Pick<DispatchState, 'snapshot'>>): number | undefined {
  const limits = state.snapshot?.limits;
  return limits === undefined ? undefined : maxJsonItems(limits.maxInputBytes);
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
