import { canonicalJson } from '../digest/canonical-json.js';
import { withholdValues } from '../errors/describe-issues.js';
import { ToolArgsInvalidError } from '../errors/tool-errors.js';
import { deepFreeze } from '../tools/compile-tool.js';
import type { DirectResult } from '../tools/direct-program.js';
import type { ValidationResult } from '../tools/schema-validator.js';
import type { ResolvedDispatchState } from './dispatch-state.js';
import { checkModelArguments, maxItemsOf, type AssembledArguments } from './assemble-arguments.js';
import { snapshotJson } from './snapshot-json.js';

const encoder = new TextEncoder();

/**
 * Stage 6: validate the COMPLETE effective set stage 5 assembled — mapped
 * and configured values exactly like model arguments — bound its canonical
 * size, and refuse any key whose value is secret-tainted. The one writer of
 * the call's `effectiveArgs`: from the first point they are known to have a
 * JSON form they are what a refusal's receipt shows, and once accepted what
 * every later stage reads.
 */
export function validateArguments(state: ResolvedDispatchState, assembled: AssembledArguments): ToolArgsInvalidError | undefined | Promise<ToolArgsInvalidError | undefined> {
  state.argsUnchecked = assembled.kind === 'unchecked';
  if (assembled.kind !== 'unmeasured') return validateMeasured(state, { value: assembled.value, sizeBound: assembled.sizeBound, foreign: assembled.kind === 'unchecked' });
  const tool = state.tool;
  // The direct validator accepts, copies and measures in one walk: a fresh value, nothing left shared with the caller.
  // JSON text parsed in stage 5 is the pipeline's own; a caller's object is copied wherever a delegated node would keep it.
  const direct = tool.validateDirect(assembled.value, typeof state.call.rawArguments === 'string', maxItemsOf(state));
  if (direct !== undefined) return acceptDirect(state, direct);
  // Where it gives up, the arguments are measured (a caller's object copied) here and the full validator decides and reports.
  const measured = checkModelArguments(state, assembled.value);
  // Never walked further, so never projected into a receipt either.
  if (!measured.ok) return new ToolArgsInvalidError(tool.key, [], measured.problem);
  return validateMeasured(state, { value: measured.value, sizeBound: measured.sizeBound, foreign: false });
}

/** Arguments known to have a JSON form, with an upper bound of their canonical size. */
interface MeasuredArguments {
  readonly value: unknown;
  readonly sizeBound: number;
  /** A caller's object a validator that hands its input back must not keep. */
  readonly foreign: boolean;
}

/** What the direct validator accepted: bounded and checked for taint like any input, and not validated again. */
function acceptDirect(state: ResolvedDispatchState, direct: DirectResult): ToolArgsInvalidError | undefined {
  const refused = refuseOversizedOrTainted(state, direct.value, direct.sizeBound);
  return refused ?? acceptValue(state, direct.value, false);
}

function validateMeasured(state: ResolvedDispatchState, measured: MeasuredArguments): ToolArgsInvalidError | undefined | Promise<ToolArgsInvalidError | undefined> {
  const input = measured.value;
  const refused = refuseOversizedOrTainted(state, input, measured.sizeBound);
  if (refused !== undefined) return refused;
  const foreign = measured.foreign;
  const result = state.tool.validateInput(input);
  if (!(result instanceof Promise)) return accept(state, result, foreign);
  // While an async validator ran, the caller could have changed its object: if the validator
  // handed that object back, validate a detached copy instead.
  return result.then((settled) => (settled.ok && foreign && settled.value === input ? revalidateCopy(state) : accept(state, settled, foreign)));
}

/**
 * The argument-size bound and the secret-taint check, before anything
 * accepts the arguments. From here on they are what a refusal's receipt shows.
 */
function refuseOversizedOrTainted(state: ResolvedDispatchState, input: unknown, sizeBound: number): ToolArgsInvalidError | undefined {
  const tool = state.tool;
  state.effectiveArgs = input;
  const limit = state.snapshot.limits.maxInputBytes;
  if (sizeBound > limit && !fitsLimit(input, limit)) {
    return new ToolArgsInvalidError(tool.key, [], `the arguments exceed ${limit} bytes`);
  }
  const secretKeys = state.context.secretArgKeys;
  if (secretKeys !== undefined) {
    const tainted = findTaintedKey(input as Record<string, unknown>, secretKeys);
    if (tainted !== undefined) return new ToolArgsInvalidError(tool.key, [{ path: tainted, message: 'carries a secret-tainted value' }]);
  }
  return undefined;
}

function accept(state: ResolvedDispatchState, result: ValidationResult, foreign: boolean): ToolArgsInvalidError | undefined {
  if (!result.ok) return new ToolArgsInvalidError(state.tool.key, withholdValues(result.issues, state.effectiveArgs, state.tool.declaredNames));
  return acceptValue(state, result.value, foreign);
}

/** The validator's value, past the definition's own `checkInput`: the call's effective arguments. */
function acceptValue(state: ResolvedDispatchState, validated: unknown, foreign: boolean): ToolArgsInvalidError | undefined {
  const tool = state.tool;
  let value = validated;
  const problem = tool.definition.checkInput?.(value);
  if (problem !== undefined) return new ToolArgsInvalidError(tool.key, [], problem);
  if (foreign && value === state.effectiveArgs) {
    // The validator handed the caller's object back. Synchronous, so nothing ran since it
    // checked: detach (and check) a copy now.
    const detached = detach(state, value);
    if (detached instanceof ToolArgsInvalidError) return detached;
    value = detached;
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
  const result = state.tool.validateInput(detached);
  return result instanceof Promise ? result.then((settled) => accept(state, settled, false)) : accept(state, result, false);
}

/** A checked copy of a caller's value, bounded like any other input. */
function detach(state: ResolvedDispatchState, value: unknown): unknown {
  const tool = state.tool;
  const copied = snapshotJson(value, maxItemsOf(state));
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
