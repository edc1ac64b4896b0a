import type { DispatchContext } from '../../core/index.js';

/**
 * The dispatch context an adapter runs every call under. The interactive
 * approval regime is always on: a governed call never runs on author trust
 * inside a framework loop. It runs when the framework's own approval flow
 * approved exactly its action digest, when the application pre-approved the
 * digest, or when the application's `confirm` hook says yes; otherwise it is
 * denied (fail closed).
 */
export function governedContext(context: DispatchContext, signal: AbortSignal | undefined, approvedActionDigest: string | undefined): DispatchContext {
  const approval = context.approval ?? {};
  const digests = approvedActionDigest === undefined ? approval.approvedActionDigests : [...digestList(approval.approvedActionDigests), approvedActionDigest];
  const merged = mergeSignals(context.signal, signal);
  return {
    ...context,
    approval: { ...approval, ...(digests === undefined ? {} : { approvedActionDigests: digests }) },
    ...(merged === undefined ? {} : { signal: merged }),
  };
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
