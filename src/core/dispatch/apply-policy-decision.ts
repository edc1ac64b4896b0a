import { ToolPolicyError } from '../errors/tool-errors.js';
import type { PolicyDecision } from '../policy/policy-types.js';
import type { DispatchState } from './dispatch-state.js';
import { eventBase } from './dispatch-state.js';

/**
 * Fold one decision into the call: a deny ends it, an ask marks it for
 * approval, an allow passes. Matched rules accumulate for the receipt.
 */
export function applyPolicyDecision(state: DispatchState, decision: PolicyDecision, stage: 'identity' | 'arguments' | 'hooks'): ToolPolicyError | undefined {
  if (decision.matched.length > 0) state.matched = [...state.matched, ...decision.matched];
  if (state.observed && state.snapshot.bus.has('policy-decided')) {
    state.snapshot.bus.emit('policy-decided', { ...eventBase(state), stage, decision, policyVersion: state.snapshot.policy.version });
  }
  if (decision.kind === 'deny') {
    state.decision = decision;
    return new ToolPolicyError(state.tool?.key ?? state.call.name, decision.reason, {
      detail: decision.detail,
      recoverable: decision.recoverable,
      retryAfterMs: decision.retryAfterMs,
      ruleId: decision.matched.find((rule) => rule.decision === 'deny')?.id,
    });
  }
  if (decision.kind === 'ask') {
    state.askedBy ??= stage === 'hooks' ? 'hook' : 'rule';
    state.decision = decision;
  } else if (state.decision === undefined || state.decision.kind === 'allow') {
    // A later allow (the arguments stage) is the more specific one: it carries the rules that matched.
    state.decision = decision;
  }
  return undefined;
}
