import type { ToolPolicyDenyReason } from '../errors/tool-errors.js';
import type { PolicySnapshot } from './policy-snapshot-types.js';
import type { Decided } from './pending-decisions.js';

/** Whether a call may start on the current snapshot, and if not, the reason and the rule that refuse it. */
export type CallStartVerdict =
  | { readonly kind: 'start' }
  | { readonly kind: 'refuse'; readonly reason: ToolPolicyDenyReason; readonly ruleId: string | undefined };

const START: CallStartVerdict = Object.freeze({ kind: 'start' });

/**
 * The re-check right before a call's body starts. A call decided on the
 * current snapshot starts. One decided on an older snapshot is re-checked
 * and starts only if the current one still allows it as it did: a deny, or
 * an allow narrowed to an ask, refuses. An unknown call is refused only when
 * some replacement happened since the first snapshot.
 */
export function checkCallStart(decided: Decided | undefined, current: PolicySnapshot, initialVersion: number): CallStartVerdict {
  if (decided !== undefined && decided.version === current.version) return START;
  const now = decided === undefined ? undefined : current.recheck(decided.input);
  const narrowedToAsk = now?.kind === 'ask' && decided?.decision.kind === 'allow';
  if (now !== undefined && now.kind !== 'deny' && !narrowedToAsk) return START;
  if (decided === undefined && current.version === initialVersion) return START;
  return { kind: 'refuse', reason: now?.kind === 'deny' ? now.reason : 'policy_changed', ruleId: now?.matched.find((rule) => rule.decision === 'deny')?.id };
}
