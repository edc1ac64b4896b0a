import { projectArguments } from '../receipts/project-arguments.js';
import type { DispatchState } from './dispatch-state.js';

/** The caller's secret-tainted argument keys, as a set. */
export function secretKeySet(state: DispatchState): ReadonlySet<string> | undefined {
  const keys = state.context.secretArgKeys;
  return keys === undefined ? undefined : keys instanceof Set ? keys : new Set(keys as readonly string[]);
}

/**
 * The display projection of the call's arguments (redacted, clipped),
 * computed once per call and frozen: the approval request, the journal
 * claim and the receipt show the same one. Redaction runs over every string
 * and key, so projecting three times cost a governed call more than
 * everything else it does. Frozen, so no hook that sees it can change what
 * the receipt later records.
 */
export function projectedArguments(state: DispatchState): unknown {
  if (state.projectedArgs === undefined) {
    state.projectedArgs = projectArguments(state.effectiveArgs, { secretKeys: secretKeySet(state), freeze: true });
  }
  return state.projectedArgs;
}
