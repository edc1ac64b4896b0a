import type { ToolCallView, ToolRisk } from '../tools/tool-types.js';
import { ToolCancelledError, ToolDeniedByUserError, ToolPolicyError, type ToolArgsInvalidError } from '../errors/tool-errors.js';
import type { ApprovalReasons, ToolApprovalDecision, ToolApprovalRequest } from '../policy/approval-types.js';
import { redactSecretsCounted } from '../policy/redact-secrets.js';
import { redactedLine } from '../policy/redacted-line.js';
import type { ResolvedAction } from '../action/resolved-action.js';
import type { PolicyDecision } from '../policy/policy-types.js';
import { buildApprovalPreview } from './build-approval-preview.js';
import { ensureDigests } from './ensure-digests.js';
import { countRedactedMarks } from '../receipts/project-arguments.js';
import { projectedArguments, secretKeySet } from './projected-arguments.js';
import { eventBase, type ResolvedDispatchState } from './dispatch-state.js';

export type ApprovalFailure = ToolDeniedByUserError | ToolPolicyError | ToolCancelledError | ToolArgsInvalidError;

/**
 * What stage 9 has to do for this call, once the policy and the hooks have
 * spoken: nothing, ask (a governed action, or a rule or hook asked), or
 * refuse, because something asked and no approval regime can answer.
 */
export type ApprovalNeed = 'none' | 'required' | 'unavailable';

export function approvalNeed(state: ResolvedDispatchState): ApprovalNeed {
  if (state.askedBy !== undefined) return state.context.approval === undefined ? 'unavailable' : 'required';
  return state.features.governed ? 'required' : 'none';
}

/**
 * Stage 9: approval, when the regime is active and the call is governed or a
 * rule or hook asked. Bound to the action digest; fail closed: no hook, a
 * hook that throws, or a digest that was not the one approved all deny. An
 * abort while the approver thinks takes the cancel path.
 */
export async function requestApproval(state: ResolvedDispatchState): Promise<ApprovalFailure | undefined> {
  const tool = state.tool;
  const regime = state.context.approval;
  if (regime === undefined) {
    // Without a regime, governed calls run on author trust; an explicit ask cannot be serviced, and a
    // protected path is never reached without a person: it is refused as what it is.
    if (state.askedBy === undefined) return undefined;
    const protectedPath = state.decision?.kind === 'ask' && state.decision.reason === 'protected_path';
    return new ToolPolicyError(tool.key, protectedPath ? 'protected_path' : 'approval_unavailable', protectedPath ? { detail: 'was refused: the path is protected, and no person can be asked to approve it here' } : {});
  }
  const ensured = ensureDigests(state);
  // With the host's synchronous SHA-256 the digests are ready: no turn of the event loop is spent waiting for them.
  const digests = ensured instanceof Promise ? await ensured : ensured;
  if (!('actionDigest' in digests)) return digests;
  const { actionDigest } = digests;
  const approved = regime.approvedActionDigests;
  if (approved !== undefined && (approved instanceof Set ? approved.has(actionDigest) : (approved as readonly string[]).includes(actionDigest))) {
    state.approval = { outcome: 'approve', how: 'pre-approved', at: Date.now() };
    return undefined;
  }
  const confirm = regime.confirm;
  if (confirm === undefined) {
    const preApproved = approved !== undefined && (approved instanceof Set ? approved.size : (approved as readonly string[]).length) > 0;
    return new ToolDeniedByUserError(tool.key, preApproved ? 'approval_mismatch' : 'no_approval_hook');
  }
  const request = approvalRequest(state, actionDigest);
  const bus = state.snapshot.bus;
  if (bus.has('approval-requested')) {
    const { preview, target } = request;
    bus.emit('approval-requested', { ...eventBase(state), action: tool.actionClass, preview, ...(target === undefined ? {} : { target }), actionDigest, toolInput: request.arguments });
  }
  const signal = state.context.signal;
  let decision: ToolApprovalDecision;
  try {
    decision = await raceAbort(confirm(request, signal), signal);
  } catch (error) {
    if (signal?.aborted === true) {
      emitResolved(state, { outcome: 'cancelled' }, actionDigest);
      return new ToolCancelledError(tool.key, 'before-dispatch');
    }
    emitResolved(state, { outcome: 'error' }, actionDigest);
    return new ToolDeniedByUserError(tool.key, 'approval_error', { cause: error });
  }
  if (signal?.aborted === true) {
    emitResolved(state, { outcome: 'cancelled' }, actionDigest);
    return new ToolCancelledError(tool.key, 'before-dispatch');
  }
  emitResolved(state, decision, actionDigest);
  if (decision?.outcome === 'approve') {
    state.approval = { outcome: 'approve', how: decision.by === undefined ? 'confirm' : `confirm:${decision.by}`, ...(decision.scope === undefined ? {} : { scope: decision.scope }), at: Date.now() };
    return undefined;
  }
  const label = decision?.outcome === 'reject' && typeof decision.reason === 'string' ? redactedLine(decision.reason) : undefined;
  // Who rejected, as for an approval: plan mode, an approval that expired, a gateway with nobody to ask and a person
  // all reject, and a receipt that kept `confirm` alone said a person refused each of them.
  state.approval = { outcome: 'reject', how: decision?.by === undefined ? 'confirm' : `confirm:${decision.by}`, at: Date.now() };
  const unanswered = decision?.outcome === 'reject' && decision.noApprover === true;
  return new ToolDeniedByUserError(tool.key, unanswered ? 'no_approval_hook' : 'user_rejected', { label });
}

/**
 * The request a `confirm` hook gets: one frozen plain object holding what
 * decides (the resolved action, the digest, the policy's decision) and what
 * a person reads (preview, target, masked count, arguments, reasons, view).
 * Plain, so an approver may spread, serialise, `structuredClone` or post it
 * to a worker like any other value.
 */
function approvalRequest(state: ResolvedDispatchState, actionDigest: string): ToolApprovalRequest {
  const tool = state.tool;
  const toolInput = projectedArguments(state);
  const { preview, target } = buildApprovalPreview(tool.actionClass, state.action, state.effectiveArgs, { shown: toolInput, secretKeys: secretKeySet(state) });
  const presented = presentedView(state);
  const decision = state.decision ?? { kind: 'allow' as const, matched: [] };
  const why = state.askedBy ?? 'governed';
  return Object.freeze({
    callId: state.call.callId,
    toolName: tool.key,
    toolVersion: tool.version,
    agent: state.agent,
    ...(state.context.approval?.session === undefined ? {} : { session: state.context.approval.session }),
    action: tool.actionClass,
    preview,
    target,
    masked: Math.max(target?.masked ?? 0, countRedactedMarks(toolInput), presented.masked),
    resolved: state.action,
    actionDigest,
    arguments: toolInput,
    decision,
    why,
    reasons: approvalReasons(decision, why, state.action, tool.policyView.risk),
    ...(presented.view === undefined ? {} : { view: presented.view }),
  });
}

/** The longest body a card shows of a tool's view; a longer one is cut, and says so. */
export const MAX_VIEW_BODY = 256 * 1024;

/** The tool's `presentCall` view, redacted, and how many values that masked; a view that throws is simply left out (display only). */
function presentedView(state: ResolvedDispatchState): { view?: ToolCallView; masked: number } {
  const present = state.tool.definition.presentCall;
  if (present === undefined) return { masked: 0 };
  try {
    const view = present(state.effectiveArgs);
    const raw = view.body === undefined ? undefined : clipViewBody(view.body);
    const parts = [view.title, view.subtitle, raw].map((text) => (text === undefined ? undefined : redactSecretsCounted(text)));
    const [title, subtitle, body] = parts.map((part) => part?.text);
    const masked = parts.reduce((sum, part) => sum + (part?.masked ?? 0), 0);
    return {
      view: Object.freeze({
        title: title ?? '',
        ...(subtitle === undefined ? {} : { subtitle }),
        ...(body === undefined ? {} : { body }),
        ...(view.language === undefined ? {} : { language: view.language }),
      }),
      masked,
    };
  } catch {
    return { masked: 0 };
  }
}

/**
 * A body cut to what a card shows, with a last line that says how much is
 * left out: a cut that said nothing would pass for the whole content, and
 * the payload of a long write would sit unseen past it.
 */
function clipViewBody(body: string): string {
  if (body.length <= MAX_VIEW_BODY) return body;
  return `${body.slice(0, MAX_VIEW_BODY)}\n… [${body.length - MAX_VIEW_BODY} more characters not shown]`;
}

/** The last line `clipViewBody` adds, which masking leaves as it is (it holds nothing a mask covers). */
const CUT_NOTICE = /\n… \[\d+ more characters not shown\]$/;

/**
 * Whether a card's body is one `clipViewBody` cut. Its length does not say:
 * masking the secrets of the part shown shortens it, so a body cut at
 * `MAX_VIEW_BODY` can read shorter than that once redacted.
 */
export function isCutViewBody(body: string): boolean {
  return CUT_NOTICE.test(body);
}

/** Why the call reaches a person, from what the policy said; `createConfirm` adds the mode. */
function approvalReasons(decision: PolicyDecision, why: ToolApprovalRequest['why'], action: ResolvedAction | undefined, risk: ToolRisk): ApprovalReasons {
  const protectedPath = (decision.kind === 'ask' && decision.reason === 'protected_path') || action?.files.some((file) => file.protected) === true;
  const reason = decision.kind === 'ask' && decision.reason !== undefined ? decision.reason : protectedPath ? 'protected_path' : why;
  const asking = decision.matched.filter((rule) => rule.decision === 'ask');
  return Object.freeze({ reason, rules: Object.freeze(asking.length > 0 ? asking : decision.matched), protectedPath, ...(reason === 'risk' ? { risk } : {}) });
}

function emitResolved(state: ResolvedDispatchState, decision: Parameters<typeof state.snapshot.bus.emit<'approval-resolved'>>[1]['decision'], actionDigest: string): void {
  const bus = state.snapshot.bus;
  if (bus.has('approval-resolved')) bus.emit('approval-resolved', { ...eventBase(state), decision, actionDigest });
}

/** Resolve with the approval, or reject as soon as the caller aborts: an approval is not started work. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    // The hook already saw the abort and rejects too: that rejection is this one, and must not be left unhandled (it would end the process).
    promise.catch(() => undefined);
    return Promise.reject(new Error('aborted while awaiting approval'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted while awaiting approval'));
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
