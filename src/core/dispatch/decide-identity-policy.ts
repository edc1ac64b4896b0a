import type { ToolPolicyError } from '../errors/tool-errors.js';
import { applyPolicyDecision } from './apply-policy-decision.js';
import type { DispatchState } from './dispatch-state.js';

/** Stage 4: rules on the tool alone, before any input is parsed, so a denied tool never has its input parsed. */
export function decideIdentityPolicy(state: DispatchState): ToolPolicyError | undefined {
  const tool = state.tool;
  if (tool === undefined) return undefined;
  const decision = state.snapshot.policy.decideIdentity({ tool: tool.policyView, agent: state.agent });
  return applyPolicyDecision(state, decision, 'identity');
}
