import { assembleArguments } from '../dispatch/assemble-arguments.js';
import { checkGrant } from '../dispatch/check-grant.js';
import { decideArgumentPolicy } from '../dispatch/decide-argument-policy.js';
import { decideIdentityPolicy } from '../dispatch/decide-identity-policy.js';
import type { DispatchState } from '../dispatch/dispatch-state.js';
import { ensureDigests } from '../dispatch/ensure-digests.js';
import { refuseProviderExecuted } from '../dispatch/refuse-provider-executed.js';
import { resolveTool } from '../dispatch/resolve-tool.js';
import { runPreExecuteHooks } from '../dispatch/run-pre-execute-hooks.js';
import { validateArguments } from '../dispatch/validate-arguments.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import type { InvocationPlan } from './plan-types.js';

/**
 * The invocation plan (seed 002 §4–5): the same stages 1–8 a dispatch runs,
 * then the approval verdict without asking anyone, and the digests an
 * approval binds to. Nothing is executed, journaled or prompted.
 */
export async function prepareInvocation(state: DispatchState): Promise<InvocationPlan> {
  const failure =
    refuseProviderExecuted(state) ?? resolveTool(state) ?? checkGrant(state) ?? decideIdentityPolicy(state) ?? assembleArguments(state);
  if (failure !== undefined) return plan(state, 'denied', failure);
  const invalid = await validateArguments(state);
  if (invalid !== undefined) return plan(state, 'denied', invalid);
  const denied = (await decideArgumentPolicy(state)) ?? (await runPreExecuteHooks(state));
  if (denied !== undefined) return plan(state, 'denied', denied);
  const digests = await ensureDigests(state);
  if (!('actionDigest' in digests)) return plan(state, 'denied', digests);
  const regime = state.context.approval !== undefined;
  const governed = state.tool?.actionClass !== undefined;
  if (state.askedBy !== undefined && !regime) return plan(state, 'denied', undefined, 'an ask needs an approval regime');
  if (state.askedBy !== undefined || (regime && governed)) {
    return plan(state, 'approval_required', undefined, state.askedBy === undefined ? `governed action (${state.tool?.actionClass ?? ''})` : `asked by a ${state.askedBy}`);
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
    reason: reason ?? error?.message,
    error,
    decision: state.decision,
    policyVersion: state.tool === undefined ? undefined : state.snapshot.policy.version,
  });
}
