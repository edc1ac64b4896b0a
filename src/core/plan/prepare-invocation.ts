import type { DispatchState } from '../dispatch/dispatch-state.js';
import { ensureDigests } from '../dispatch/ensure-digests.js';
import { approvalNeed } from '../dispatch/request-approval.js';
import { runDecisionStages } from '../dispatch/run-decision-stages.js';
import { ToolgateError } from '../errors/toolgate-error.js';
import type { InvocationPlan } from './plan-types.js';

/**
 * The invocation plan, what a host shows before it commits to a call: the
 * decisions a dispatch makes (stages 1–8, the same runner), then the
 * approval verdict without asking anyone, and the digests an approval binds
 * to. Nothing is executed, journaled or prompted.
 */
export async function prepareInvocation(state: DispatchState): Promise<InvocationPlan> {
  const decided = await runDecisionStages(state);
  if (decided instanceof ToolgateError) return plan(state, 'denied', decided);
  const digests = await ensureDigests(decided);
  if (!('actionDigest' in digests)) return plan(state, 'denied', digests);
  const need = approvalNeed(decided);
  if (need === 'unavailable') return plan(state, 'denied', undefined, 'an ask needs an approval regime');
  if (need === 'required') {
    return plan(state, 'approval_required', undefined, decided.askedBy === undefined ? `governed action (${decided.tool.actionClass ?? ''})` : `asked by a ${decided.askedBy}`);
  }
  return plan(state, 'ready');
}

function plan(state: DispatchState, status: InvocationPlan['status'], error?: ToolgateError, reason?: string): InvocationPlan {
  return Object.freeze({
    status,
    callId: state.call.callId,
    toolName: state.tool?.key,
    toolVersion: state.tool?.version,
    inputDigest: state.digests?.inputDigest,
    actionDigest: state.digests?.actionDigest,
    action: state.tool?.actionClass,
    resolved: state.action,
    reason: reason ?? error?.message,
    error,
    decision: state.decision,
    policyVersion: state.tool === undefined ? undefined : state.snapshot.policy.version,
  });
}
