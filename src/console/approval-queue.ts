import { ConfigurationError, type ConfirmActionHook, type ToolApprovalDecision, type ToolApprovalRequest } from '../core/internal.js';
import { ApprovalBoard } from './approval-board.js';
import { shownSession } from './shown-session.js';
import type { ApprovalOutcome, ApprovalQueue, PendingApproval } from './console-types.js';

export type { ApprovalChange, ApprovalOutcome, ApprovalQueue, ClosedApproval, PendingApproval } from './console-types.js';

export interface ApprovalQueueOptions {
  /** Add display details (a diff) to a request. Runs before the approval is shown. */
  readonly enrich?: (request: ToolApprovalRequest) => Promise<{ diff?: string } | undefined>;
  /**
   * The most approvals held at once, those still being enriched included
   * (default 100). Beyond it a request is rejected at once — never queued,
   * never shown — so a flood of calls cannot grow memory or bury a person.
   */
  readonly maxPending?: number;
  /** How long an approval waits for a person before it expires as a rejection (default 10 minutes). */
  readonly timeoutMs?: number;
}

/** The default cap on approvals held at once. */
export const DEFAULT_MAX_PENDING_APPROVALS = 100;

/** The reason a request is refused when the queue is full. */
export const APPROVAL_QUEUE_FULL_REASON = 'the approval queue is full';

/** The default time an approval waits for a person. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** The start of the reason an approval nobody decided is rejected with. */
export const APPROVAL_EXPIRED_REASON = 'the approval expired';

/**
 * Pending approvals held until a person decides in the console (or the
 * terminal). The queue is the human half of a `confirm` hook: modes and
 * remembered approvals wrap it (`createConfirm({ prompt: queue.confirm })`).
 * An approval lives as long as its call: the call's signal aborting
 * withdraws it, and one nobody decides expires as a rejection. Either way
 * it is gone, and deciding it does nothing.
 */
export function createApprovalQueue(options: ApprovalQueueOptions = {}): ApprovalQueue {
  const { maxPending, timeoutMs } = queueLimits(options);
  const board = new ApprovalBoard();
  let counter = 0;
  // Approvals admitted and not yet resolved: those waiting and those still being enriched.
  let held = 0;

  const enqueue = async (request: ToolApprovalRequest, signal: AbortSignal | undefined): Promise<ToolApprovalDecision> => {
    const extra = options.enrich === undefined ? undefined : await options.enrich(request).catch(() => undefined);
    counter += 1;
    const approval = pendingApprovalOf(request, `ap_${Date.now().toString(36)}_${counter.toString(36)}`, extra?.diff);
    return awaitDecision(board, approval, signal, timeoutMs);
  };

  const confirm: ConfirmActionHook = async (request, signal) => {
    // Fail closed before any work: a request beyond the cap is refused, never enriched, queued or shown.
    if (held >= maxPending) {
      return { outcome: 'reject', reason: `${APPROVAL_QUEUE_FULL_REASON} (${maxPending} approvals are pending); decide or cancel some, then retry`, by: 'approval-queue' };
    }
    held += 1;
    try {
      return await enqueue(request, signal);
    } finally {
      held -= 1;
    }
  };

  return {
    confirm,
    pending: () => board.pending(),
    closed: () => board.closed(),
    decide: (id, decision) => board.decide(id, decision),
    subscribe: (listener) => board.subscribe(listener),
  };
}

function queueLimits(options: ApprovalQueueOptions): { readonly maxPending: number; readonly timeoutMs: number } {
  const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING_APPROVALS;
  if (!Number.isSafeInteger(maxPending) || maxPending < 1) throw new ConfigurationError('maxPending', 'must be a positive integer');
  const timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  // A timer cannot wait longer than 2^31 - 1 ms: beyond it Node fires at once.
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 1 && timeoutMs <= 2 ** 31 - 1)) throw new ConfigurationError('timeoutMs', 'must be a positive number of milliseconds, at most 2147483647');
  return { maxPending, timeoutMs };
}

/** What the console shows of a request: the request's own secret-free views, and the diff enrichment added. */
function pendingApprovalOf(request: ToolApprovalRequest, id: string, diff: string | undefined): PendingApproval {
  return Object.freeze({
    id,
    createdAt: Date.now(),
    callId: request.callId,
    toolName: request.toolName,
    agent: request.agent,
    ...(request.session === undefined ? {} : { session: shownSession(request.session) }),
    action: request.action,
    preview: request.preview,
    arguments: request.arguments,
    actionDigest: request.actionDigest,
    why: request.why,
    target: request.target,
    masked: request.masked,
    reasons: request.reasons,
    ...(request.view === undefined ? {} : { view: request.view }),
    ...(diff === undefined ? {} : { diff }),
  });
}

/** Show an approval and wait: whichever comes first — a decision, the call ending, the timeout — closes it; the others then do nothing. */
function awaitDecision(board: ApprovalBoard, approval: PendingApproval, signal: AbortSignal | undefined, timeoutMs: number): Promise<ToolApprovalDecision> {
  return new Promise<ToolApprovalDecision>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const close = (outcome: ApprovalOutcome): boolean => {
      if (!board.close(approval, outcome)) return false;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const onAbort = (): void => {
      if (close('withdrawn')) reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      if (close('expired')) resolve({ outcome: 'reject', reason: `${APPROVAL_EXPIRED_REASON}: nobody decided within ${timeoutMs / 1000} s`, by: 'approval-queue' });
    }, timeoutMs);
    // A pending approval alone does not keep the process alive.
    timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
    board.open(approval, (decision) => {
      if (close(decision.outcome)) resolve(decision);
    });
  });
}
