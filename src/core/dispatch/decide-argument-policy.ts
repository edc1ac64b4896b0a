import { ToolPolicyError } from '../errors/tool-errors.js';
import { applyPolicyDecision } from './apply-policy-decision.js';
import type { DispatchState } from './dispatch-state.js';

/**
 * Stage 7: guardrails and rules on the EFFECTIVE arguments, through the
 * tool's `policyTarget`. A target function that throws fails closed.
 */
export function decideArgumentPolicy(state: DispatchState): ToolPolicyError | undefined {
  const tool = state.tool;
  if (tool === undefined) return undefined;
  const targetOf = tool.definition.policyTarget;
  if (targetOf !== undefined) {
    try {
      state.target = Object.freeze({ ...targetOf(state.effectiveArgs) });
    } catch (error) {
      return new ToolPolicyError(tool.key, 'target_unavailable', { detail: 'was refused: its policy target could not be computed', cause: error });
    }
  }
  const decision = state.snapshot.policy.decideArguments({
    tool: tool.policyView,
    agent: state.agent,
    args: state.effectiveArgs,
    target: state.target,
    gateApproved: state.context.gateApproved === true,
  });
  return applyPolicyDecision(state, decision, 'arguments');
}
