import type { DispatchContext, PromptHook } from '../../core/internal.js';
import { controllerOf } from '../../core/policy/create-confirm.js';

/**
 * The dispatch context an adapter runs every call under. The interactive
 * approval regime is always on: a governed call never runs on author trust
 * inside a framework loop. It runs when the framework's own approval flow
 * approved exactly its action digest, when the application pre-approved the
 * digest, or when the application's `confirm` hook says yes; otherwise it is
 * denied (fail closed). When that hook is a `createConfirm` controller's, the
 * framework's approval is only the person's answer inside its mode logic.
 */
export function governedContext(context: DispatchContext, signal: AbortSignal | undefined, approvedActionDigest: string | undefined): DispatchContext {
  const approval = context.approval ?? {};
  const merged = mergeSignals(context.signal, signal);
  const controller = controllerOf(approval.confirm);
  if (approvedActionDigest !== undefined && controller !== undefined) {
    // The framework asked the person; the application's mode logic still decides first (plan runs nothing).
    return { ...context, approval: { ...approval, confirm: controller.confirmWith(frameworkAnswer(approvedActionDigest)) }, ...(merged === undefined ? {} : { signal: merged }) };
  }
  const digests = approvedActionDigest === undefined ? approval.approvedActionDigests : [...digestList(approval.approvedActionDigests), approvedActionDigest];
  return {
    ...context,
    approval: { ...approval, ...(digests === undefined ? {} : { approvedActionDigests: digests }) },
    ...(merged === undefined ? {} : { signal: merged }),
  };
}

/** The person's answer given in the framework's flow: yes, for exactly the action that was approved there. */
function frameworkAnswer(approvedActionDigest: string): PromptHook {
  return (request) =>
    Promise.resolve(
      request.actionDigest === approvedActionDigest
        ? { outcome: 'approve', scope: 'once', by: 'framework' }
        : { outcome: 'reject', reason: 'the call changed after it was approved', by: 'framework' },
    );
}

/** Whether the application already approved this digest ahead of dispatch (so the framework need not ask). */
export function isPreApproved(context: DispatchContext, actionDigest: string | undefined): boolean {
  if (actionDigest === undefined) return false;
  const approved = context.approval?.approvedActionDigests;
  if (approved === undefined) return false;
  return approved instanceof Set ? approved.has(actionDigest) : (approved as readonly string[]).includes(actionDigest);
}

function digestList(digests: ReadonlySet<string> | readonly string[] | undefined): readonly string[] {
  if (digests === undefined) return [];
  return digests instanceof Set ? [...digests] : (digests as readonly string[]);
}

/** The run's signal and the framework's per-call signal: either one aborts the call. */
function mergeSignals(first: AbortSignal | undefined, second: AbortSignal | undefined): AbortSignal | undefined {
  if (first === undefined || first === second) return second;
  if (second === undefined) return first;
  return AbortSignal.any([first, second]);
}
