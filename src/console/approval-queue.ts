import { ConfigurationError, type ConfirmActionHook, type ToolApprovalDecision, type ToolApprovalRequest } from '../core/index.js';

/**
 * A pending approval as the console shows it: the masked display of
 * everything the decision covers and why it asks. Never the resolved action
 * itself (unmasked) nor raw arguments: this goes to a browser.
 */
export interface PendingApproval {
  readonly id: string;
  readonly createdAt: number;
  readonly callId: string;
  readonly toolName: string;
  readonly agent: string | undefined;
  readonly action: ToolApprovalRequest['action'];
  readonly preview: ToolApprovalRequest['preview'];
  readonly arguments: unknown;
  readonly actionDigest: string;
  readonly why: ToolApprovalRequest['why'];
  /** Where the call really acts, masked: real paths and flags, argv, method and URL, MCP server, tool and arguments. */
  readonly target: ToolApprovalRequest['target'];
  /** How many values what is shown masks. */
  readonly masked: number;
  /** Why it asks: the rules with their text and source, the mode, a protected path, the risk. */
  readonly reasons: ToolApprovalRequest['reasons'];
  /** The tool's own rendering of the call (redacted): the new content, the command. */
  readonly view?: ToolApprovalRequest['view'];
  /** A unified diff for file writes, when the enricher could build one. */
  readonly diff?: string;
}

export type ApprovalChange =
  | { readonly type: 'added'; readonly approval: PendingApproval }
  | { readonly type: 'resolved'; readonly id: string; readonly outcome: 'approve' | 'reject' | 'cancelled' };

export interface ApprovalQueueOptions {
  /** Add display details (a diff) to a request. Runs before the approval is shown. */
  readonly enrich?: (request: ToolApprovalRequest) => Promise<{ diff?: string } | undefined>;
  /**
   * The most approvals held at once, those still being enriched included
   * (default 100). Beyond it a request is rejected at once — never queued,
   * never shown — so a flood of calls cannot grow memory or bury a person.
   */
  readonly maxPending?: number;
}

/** The default cap on approvals held at once. */
export const DEFAULT_MAX_PENDING_APPROVALS = 100;

/** The reason a request is refused when the queue is full. */
export const APPROVAL_QUEUE_FULL_REASON = 'the approval queue is full';

export interface ApprovalQueue {
  /** The confirm hook: it waits until someone decides (or the call is cancelled). */
  readonly confirm: ConfirmActionHook;
  pending(): readonly PendingApproval[];
  /** Resolve a pending approval; false when it no longer exists. */
  decide(id: string, decision: ToolApprovalDecision): boolean;
  subscribe(listener: (change: ApprovalChange) => void): () => void;
}

/**
 * Pending approvals held until a person decides in the console (or the
 * terminal). The queue is the human half of a `confirm` hook: modes and
 * remembered approvals wrap it (`createConfirm({ prompt: queue.confirm })`).
 */
export function createApprovalQueue(options: ApprovalQueueOptions = {}): ApprovalQueue {
  const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING_APPROVALS;
  if (!Number.isSafeInteger(maxPending) || maxPending < 1) throw new ConfigurationError('maxPending', 'must be a positive integer');
  const waiting = new Map<string, { approval: PendingApproval; resolve: (decision: ToolApprovalDecision) => void }>();
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
      const onAbort = (): void => {
        waiting.delete(approval.id);
        notify({ type: 'resolved', id: approval.id, outcome: 'cancelled' });
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.set(approval.id, {
        approval,
        resolve: (decision) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(decision);
        },
      });
      notify({ type: 'added', approval });
    });
  };

  return {
    confirm,
    pending: () => [...waiting.values()].map((entry) => entry.approval),
    decide(id, decision) {
      const entry = waiting.get(id);
      if (entry === undefined) return false;
      waiting.delete(id);
      entry.resolve(decision);
      notify({ type: 'resolved', id, outcome: decision.outcome });
      return true;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
