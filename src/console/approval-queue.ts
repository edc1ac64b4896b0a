import { ConfigurationError, type ConfirmActionHook, type ToolApprovalDecision, type ToolApprovalRequest } from '../core/internal.js';
import type { ApprovalChange, ApprovalOutcome, ApprovalQueue, ClosedApproval, PendingApproval } from './console-types.js';

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

/** How many closed approvals the queue remembers for the console. */
const MAX_CLOSED = 50;

/**
 * Pending approvals held until a person decides in the console (or the
 * terminal). The queue is the human half of a `confirm` hook: modes and
 * remembered approvals wrap it (`createConfirm({ prompt: queue.confirm })`).
 * An approval lives as long as its call: the call's signal aborting
 * withdraws it, and one nobody decides expires as a rejection. Either way
 * it is gone, and deciding it does nothing.
 */
export function createApprovalQueue(options: ApprovalQueueOptions = {}): ApprovalQueue {
  const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING_APPROVALS;
  if (!Number.isSafeInteger(maxPending) || maxPending < 1) throw new ConfigurationError('maxPending', 'must be a positive integer');
  const timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  // A timer cannot wait longer than 2^31 - 1 ms: beyond it Node fires at once.
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 1 && timeoutMs <= 2 ** 31 - 1)) throw new ConfigurationError('timeoutMs', 'must be a positive number of milliseconds, at most 2147483647');
  const waiting = new Map<string, { approval: PendingApproval; settle: (decision: ToolApprovalDecision) => void }>();
  const closed: ClosedApproval[] = [];
  const listeners = new Set<(change: ApprovalChange) => void>();
  let counter = 0;
  // Approvals admitted and not yet resolved: those waiting and those still being enriched.
  let held = 0;

  const notify = (change: ApprovalChange): void => {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        console.warn('toolgate: an approval listener threw', error);
      }
    }
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

  const enqueue = async (request: ToolApprovalRequest, signal: AbortSignal | undefined): Promise<ToolApprovalDecision> => {
    const extra = options.enrich === undefined ? undefined : await options.enrich(request).catch(() => undefined);
    counter += 1;
    const approval: PendingApproval = Object.freeze({
      id: `ap_${Date.now().toString(36)}_${counter.toString(36)}`,
      createdAt: Date.now(),
      callId: request.callId,
      toolName: request.toolName,
      agent: request.agent,
      action: request.action,
      preview: request.preview,
      arguments: request.arguments,
      actionDigest: request.actionDigest,
      why: request.why,
      target: request.target,
      masked: request.masked,
      reasons: request.reasons,
      ...(request.view === undefined ? {} : { view: request.view }),
      ...(extra?.diff === undefined ? {} : { diff: extra.diff }),
    });
    return new Promise<ToolApprovalDecision>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason as Error);
        return;
      }
      // Whichever comes first — a decision, the call ending, the timeout — closes the approval; the others then do nothing.
      const close = (outcome: ApprovalOutcome): boolean => {
        if (!waiting.delete(approval.id)) return false;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const entry: ClosedApproval = Object.freeze({ id: approval.id, callId: approval.callId, toolName: approval.toolName, outcome, closedAt: Date.now() });
        closed.push(entry);
        if (closed.length > MAX_CLOSED) closed.shift();
        notify({ type: 'resolved', ...entry });
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
      waiting.set(approval.id, {
        approval,
        settle: (decision) => {
          if (close(decision.outcome)) resolve(decision);
        },
      });
      notify({ type: 'added', approval });
    });
  };

  return {
    confirm,
    pending: () => [...waiting.values()].map((entry) => entry.approval),
    closed: () => [...closed],
    decide(id, decision) {
      const entry = waiting.get(id);
      if (entry === undefined) return false;
      entry.settle(decision);
      return true;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
