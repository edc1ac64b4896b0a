import type { DispatchContext, ToolCall, ToolRegistry } from '../../core/internal.js';
import type { ApprovalLedger } from './approval-ledger.js';
import { planGoverned } from './dispatch-governed.js';
import { frameworkCardShows } from './framework-card.js';

export interface ApprovedDigestOptions {
  readonly registry: ToolRegistry;
  readonly context: DispatchContext;
  readonly call: ToolCall;
  readonly ledger: ApprovalLedger;
  /**
   * What the framework's own approval flow said about this call id: approved
   * for this call (`call`), approved only by a standing approval of the whole
   * tool (`standing`, such as the OpenAI Agents SDK's "always approve"), or
   * not approved (`none`).
   */
  readonly approved: FrameworkApproval;
}

export type FrameworkApproval = 'call' | 'standing' | 'none';

/**
 * The action digest a framework approval stands for. Pinned when this tool
 * set raised the request (so a changed action no longer matches and is
 * denied); otherwise, for a tool set rebuilt since (a stateless server, a
 * restored run), the digest of the call the framework approved, recomputed
 * from the arguments the framework bound to that approval.
 * Undefined when the framework did not approve the call, when only a
 * standing approval covers a call this tool set never raised a request for,
 * when this tool set holds no request for the call and either the
 * application keeps its own approved digests or the tool set raised one and
 * dropped it, when a standing approval covers a call raised beside another
 * card of its tool,
 * when its call id already spent the approval (a later call reusing the
 * id, a replayed request), or when the call's resolved targets hold what
 * the framework's card could not show (`frameworkCardShows`): then only the
 * application's `confirm` hook or pre-approved digests can let it run.
 */
export async function approvedDigest(options: ApprovedDigestOptions): Promise<string | undefined> {
  const pinned = options.ledger.take(options.call.callId);
  if (options.approved === 'none') return undefined;
  // A standing approval was given for one request a person was shown; it stands for no call whose request this tool set
  // never raised, nor for one of several cards of the tool a reply raised: the SDK records it for the tool alone, and would
  // run the others, one the person rejected too, as if each were the card they approved.
  if (options.approved === 'standing' && pinned?.alone !== true) return undefined;
  // A tool set that never raised the request would take the call as it now stands (arguments edited in a stored run, the
  // first of two calls under one id). Where the application keeps the digests its person approved, those alone decide,
  // and where this tool set raised the request and dropped it, it no longer knows what the card showed.
  if (pinned === undefined && (options.ledger.dropped(options.call.callId) || options.context.approval?.approvedActionDigests !== undefined)) return undefined;
  // One framework approval, one execution: a call id that already ran on its approval gets none.
  if (!options.ledger.spend(options.call.callId)) return undefined;
  const plan = await planGoverned({ registry: options.registry, context: options.context, call: options.call });
  // Judged again as the call stands now: a link put in place since the card was raised is not on that card either.
  if (!frameworkCardShows(plan)) return undefined;
  return pinned?.actionDigest ?? plan.actionDigest;
}
