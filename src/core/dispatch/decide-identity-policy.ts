import type { ToolPolicyError } from '../errors/tool-errors.js';
import { applyPolicyDecision } from './apply-policy-decision.js';
import type { ResolvedDispatchState } from './dispatch-state.js';

/** Stage 4: rules on the tool alone, before any input is parsed: a denied tool's input is never read. */
export function decideIdentityPolicy(state: ResolvedDispatchState): ToolPolicyError | undefined {
  const decision = state.snapshot.policy.decideIdentity({ tool: state.tool.policyView, agent: state.agent });
  return applyPolicyDecision(state, decision, 'identity');
}
