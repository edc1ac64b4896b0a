import { canonicalJson } from '../digest/canonical-json.js';
import { withholdValues } from '../errors/describe-issues.js';
import { ToolArgsInvalidError } from '../errors/tool-errors.js';
import { deepFreeze, type CompiledTool } from '../tools/compile-tool.js';
import type { ValidationResult } from '../tools/schema-validator.js';
import type { DispatchState } from './dispatch-state.js';
import { snapshotJson } from './snapshot-json.js';

const encoder = new TextEncoder();

/**
 * Stage 6: validate the COMPLETE effective set — mapped and configured
 * values exactly like model arguments — bound its canonical size, and refuse
 * any key whose value is secret-tainted.
 */
export function validateArguments(state: DispatchState): ToolArgsInvalidError | undefined | Promise<ToolArgsInvalidError | undefined> {
  const tool = state.tool;
  if (tool === undefined) return undefined;
  const limit = state.snapshot.limits.maxInputBytes;
  if (state.modelArgsSizeBound > limit && encoder.encode(canonicalJson(state.effectiveArgs)).length > limit) {
    return new ToolArgsInvalidError(tool.key, [], `the arguments exceed ${limit} bytes`);
  }
  const secretKeys = state.context.secretArgKeys;
  if (secretKeys !== undefined) {
    const tainted = findTaintedKey(state.effectiveArgs as Record<string, unknown>, secretKeys);
    if (tainted !== undefined) return new ToolArgsInvalidError(tool.key, [{ path: tainted, message: 'carries a secret-tainted value' }]);
  }
  const input = state.effectiveArgs;
  const result = tool.validateInput(input);
  if (!(result instanceof Promise)) return accept(state, result);
  // While an async validator ran, the caller could have changed its object: if the validator
  // handed that object back, validate a detached copy instead.
  return result.then((settled) => (settled.ok && state.argsForeign && settled.value === input ? revalidateCopy(state) : accept(state, settled)));
}

function accept(state: DispatchState, result: ValidationResult): ToolArgsInvalidError | undefined {
  if (!result.ok) return new ToolArgsInvalidError(state.tool?.key ?? state.call.name, withholdValues(result.issues, state.effectiveArgs));
  let value = result.value;
  // Synchronous, so nothing ran since the check: detach the caller's object now if it came back.
  if (state.argsForeign && value === state.effectiveArgs) value = detach(value);
  state.argsForeign = false;
  // Frozen when code other than the tool body will see it — hooks, wrappers, an approver, a
  // journal — so none of them can rewrite input; the plain path skips the walk (design.md §Budgets).
  state.effectiveArgs = argumentsShared(state) ? deepFreeze(value) : value;
  return undefined;
}

function revalidateCopy(state: DispatchState): ToolArgsInvalidError | undefined | Promise<ToolArgsInvalidError | undefined> {
  state.effectiveArgs = detach(state.effectiveArgs);
  state.argsForeign = false;
  const result = (state.tool as CompiledTool).validateInput(state.effectiveArgs);
  return result instanceof Promise ? result.then((settled) => accept(state, settled)) : accept(state, result);
}

/** A copy of a value stage 5 already checked, so the copy cannot fail. */
function detach(value: unknown): unknown {
  const copied = snapshotJson(value);
  return copied.ok ? copied.value : value;
}

function findTaintedKey(args: Record<string, unknown>, secretKeys: ReadonlySet<string> | readonly string[]): string | undefined {
  for (const key of secretKeys) if (Object.hasOwn(args, key)) return /^[A-Za-z0-9_.-]{1,64}$/.test(key) ? key : '?';
  return undefined;
}

function argumentsShared(state: DispatchState): boolean {
  const { hooks, journal } = state.snapshot;
  return (
    hooks.preExecute.length > 0 ||
    hooks.guards.length > 0 ||
    hooks.around.length > 0 ||
    hooks.postExecute.length > 0 ||
    state.context.approval !== undefined ||
    (journal !== undefined && state.tool?.journalTier !== 'none')
  );
}
