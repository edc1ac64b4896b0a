import { canonicalJson } from '../digest/canonical-json.js';
import { withholdValues } from '../errors/describe-issues.js';
import { ToolArgsInvalidError } from '../errors/tool-errors.js';
import { deepFreeze } from '../tools/compile-tool.js';
import type { ValidationResult } from '../tools/schema-validator.js';
import type { DispatchState } from './dispatch-state.js';

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
  const result = tool.validateInput(state.effectiveArgs);
  return result instanceof Promise ? result.then((settled) => accept(state, settled)) : accept(state, result);
}

function accept(state: DispatchState, result: ValidationResult): ToolArgsInvalidError | undefined {
  if (!result.ok) return new ToolArgsInvalidError(state.tool?.key ?? state.call.name, withholdValues(result.issues, state.effectiveArgs));
  // A validator may return a transformed copy (defaults, coercions); freeze it so no hook can rewrite input.
  state.effectiveArgs = result.value === state.effectiveArgs ? result.value : deepFreeze(result.value);
  return undefined;
}

function findTaintedKey(args: Record<string, unknown>, secretKeys: ReadonlySet<string> | readonly string[]): string | undefined {
  for (const key of secretKeys) if (Object.hasOwn(args, key)) return /^[A-Za-z0-9_.-]{1,64}$/.test(key) ? key : '?';
  return undefined;
}
