import { ToolPolicyError } from '../errors/tool-errors.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import { applyPolicyDecision } from './apply-policy-decision.js';
import type { ResolvedDispatchState } from './dispatch-state.js';
import { resolveAction } from './resolve-action.js';

/**
 * Stage 7: guardrails and rules on the EFFECTIVE arguments, through the
 * tool's `policyTarget`, resolved into the call's action first (real paths
 * when the host can say them). A target function that throws fails closed:
 * with its own `ToolPolicyError`, or else with `target_unavailable`.
 * Synchronous unless the host resolves asynchronously.
 */
export function decideArgumentPolicy(state: ResolvedDispatchState): ToolgateError | undefined | Promise<ToolgateError | undefined> {
  const tool = state.tool;
  const targetOf = tool.definition.policyTarget;
  if (targetOf !== undefined) {
    try {
      // Copied member by member, not spread: V8 gives a spread copy a shape outside its usual tree, so freezing one
      // made a new shape for every call's target, and each stage reading it met one more shape than it can keep.
      state.target = Object.freeze(Object.fromEntries(Object.entries(targetOf(state.effectiveArgs))));
    } catch (error) {
      // A policy refusal the target function words itself stands; anything else it throws may quote the arguments.
      if (error instanceof ToolPolicyError) return error;
      return new ToolPolicyError(tool.key, 'target_unavailable', { detail: 'was refused: its policy target could not be computed', cause: error });
    }
  }
  const resolved = resolveAction(state);
  if (resolved instanceof Promise) return resolved.then((failure) => failure ?? decide(state));
  return resolved ?? decide(state);
}

function decide(state: ResolvedDispatchState): ToolPolicyError | undefined {
  const decision = state.snapshot.policy.decideArguments({
    tool: state.tool.policyView,
    agent: state.agent,
    args: state.effectiveArgs,
    target: state.target,
    // Always present, undefined without a target: one object of one shape, with nothing spread into it.
    action: state.action,
    gateApproved: state.context.gateApproved === true,
  });
  return applyPolicyDecision(state, decision, 'arguments');
}
