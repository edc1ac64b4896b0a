import { canonicalJson } from '../digest/canonical-json.js';
import { withholdValues } from '../errors/describe-issues.js';
import { ToolArgsInvalidError } from '../errors/tool-errors.js';
import { deepFreeze, type CompiledTool } from '../tools/compile-tool.js';
import type { ValidationResult } from '../tools/schema-validator.js';
import type { ResolvedDispatchState } from './dispatch-state.js';
import { checkModelArguments } from './assemble-arguments.js';
import { snapshotJson } from './snapshot-json.js';

const encoder = new TextEncoder();

/**
 * Stage 6: validate the COMPLETE effective set — mapped and configured
 * values exactly like model arguments — bound its canonical size, and refuse
 * any key whose value is secret-tainted.
 */
export function validateArguments(state: ResolvedDispatchState): ToolArgsInvalidError | undefined | Promise<ToolArgsInvalidError | undefined> {
  const tool = state.tool;
  const directlyValid = state.argsUnmeasured ? validateDirectly(state, tool) : false;
  if (directlyValid instanceof ToolArgsInvalidError) return directlyValid;
  const limit = state.snapshot.limits.maxInputBytes;
  if (state.modelArgsSizeBound > limit && !fitsLimit(state.effectiveArgs, limit)) {
    return new ToolArgsInvalidError(tool.key, [], `the arguments exceed ${limit} bytes`);
  }
  const secretKeys = state.context.secretArgKeys;
  if (secretKeys !== undefined) {
    const tainted = findTaintedKey(state.effectiveArgs as Record<string, unknown>, secretKeys);
    if (tainted !== undefined) return new ToolArgsInvalidError(tool.key, [{ path: tainted, message: 'carries a secret-tainted value' }]);
  }
  if (directlyValid) return accept(state, { ok: true, value: state.effectiveArgs });
  const input = state.effectiveArgs;
  const result = tool.validateInput(input);
  if (!(result instanceof Promise)) return accept(state, result);
  // While an async validator ran, the caller could have changed its object: if the validator
  // handed that object back, validate a detached copy instead.
  return result.then((settled) => (settled.ok && state.argsForeign && settled.value === input ? revalidateCopy(state) : accept(state, settled)));
}

/**
 * Arguments stage 5 left unmeasured for the tool's direct validator: accepted,
 * copied and measured in one walk (true), or measured here for the full
 * validator, which decides and reports (false).
 */
function validateDirectly(state: ResolvedDispatchState, tool: CompiledTool): ToolArgsInvalidError | boolean {
  state.argsUnmeasured = false;
  const direct = tool.validateDirect(state.effectiveArgs);
  if (direct !== undefined) {
    // The fresh value the schema's validator would leave: nothing left shared with the caller.
    state.modelArgs = direct.value as Readonly<Record<string, unknown>>;
    state.effectiveArgs = direct.value;
    state.modelArgsSizeBound = direct.sizeBound;
    state.argsForeign = false;
    return true;
  }
  const measured = checkModelArguments(state, tool, state.effectiveArgs);
  if (!measured.ok) {
    // Never walked further, so never projected into a receipt either.
    state.modelArgs = undefined;
    state.effectiveArgs = undefined;
    return new ToolArgsInvalidError(tool.key, [], measured.problem);
  }
  state.modelArgs = measured.value as Readonly<Record<string, unknown>>;
  state.effectiveArgs = measured.value;
  state.modelArgsSizeBound = measured.sizeBound;
  return false;
}

function accept(state: ResolvedDispatchState, result: ValidationResult): ToolArgsInvalidError | undefined {
  const tool = state.tool;
  if (!result.ok) return new ToolArgsInvalidError(tool.key, withholdValues(result.issues, state.effectiveArgs, tool.declaredNames));
  let value = result.value;
  const problem = tool.definition.checkInput?.(value);
  if (problem !== undefined) return new ToolArgsInvalidError(tool.key, [], problem);
  if (state.argsForeign) {
    if (value === state.effectiveArgs) {
      // The validator handed the caller's object back. Synchronous, so nothing ran since it
      // checked: detach (and check) a copy now.
      const detached = detach(state, value);
      if (detached instanceof ToolArgsInvalidError) return detached;
      value = detached;
    }
    state.argsForeign = false;
  }
  // Frozen when code other than the tool body will see it — hooks, wrappers, an approver, a
  // journal — so none of them can rewrite input; the plain path skips the walk, which would cost more than its whole budget.
  state.effectiveArgs = state.features.argumentsShared ? deepFreeze(value) : value;
  return undefined;
}

function revalidateCopy(state: ResolvedDispatchState): ToolArgsInvalidError | undefined | Promise<ToolArgsInvalidError | undefined> {
  const detached = detach(state, state.effectiveArgs);
  if (detached instanceof ToolArgsInvalidError) return detached;
  state.effectiveArgs = detached;
  state.argsForeign = false;
  const result = state.tool.validateInput(detached);
  return result instanceof Promise ? result.then((settled) => accept(state, settled)) : accept(state, result);
}

/** A checked copy of a caller's value, bounded like any other input. */
function detach(state: ResolvedDispatchState, value: unknown): unknown {
  const tool = state.tool;
  const copied = snapshotJson(value);
  if (!copied.ok) return new ToolArgsInvalidError(tool.key, [], copied.problem);
  const limit = state.snapshot.limits.maxInputBytes;
  if (copied.sizeBound > limit && !fitsLimit(copied.value, limit)) {
    return new ToolArgsInvalidError(tool.key, [], `the arguments exceed ${limit} bytes`);
  }
  return copied.value;
}

function findTaintedKey(args: Record<string, unknown>, secretKeys: ReadonlySet<string> | readonly string[]): string | undefined {
  for (const key of secretKeys) if (Object.hasOwn(args, key)) return /^[A-Za-z0-9_.-]{1,64}$/.test(key) ? key : '?';
  return undefined;
}

/** Exact canonical size check; a value with no canonical form (a caller's unchecked config value) does not fit. */
function fitsLimit(value: unknown, limit: number): boolean {
  try {
    return encoder.encode(canonicalJson(value)).length <= limit;
  } catch {
    return false;
  }
}
