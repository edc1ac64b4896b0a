import type { ToolApprovalDecision } from '../core/internal.js';
import type { ApprovalChange, ApprovalOutcome, ClosedApproval, PendingApproval } from './console-types.js';

/** How many closed approvals the board remembers for the console. */
const MAX_CLOSED = 50;

/**
 * What the console shows of the approvals: those waiting for a person, the
 * most recently closed, and every change as it happens. An approval is
 * closed once, by whichever comes first (a decision, the call ending, the
 * timeout); closing it again does nothing.
 */
export class ApprovalBoard {
  private readonly waiting = new Map<string, { readonly approval: PendingApproval; readonly settle: (decision: ToolApprovalDecision) => void }>();
  private readonly recent: ClosedApproval[] = [];
  private readonly listeners = new Set<(change: ApprovalChange) => void>();

  /** Show an approval; `settle` is what a person's decision on it does. */
  open(approval: PendingApproval, settle: (decision: ToolApprovalDecision) => void): void {
    this.waiting.set(approval.id, { approval, settle });
    this.notify({ type: 'added', approval });
  }

  /** Close a waiting approval with its outcome; false when it was closed already. */
  close(approval: PendingApproval, outcome: ApprovalOutcome): boolean {
    if (!this.waiting.delete(approval.id)) return false;
    const entry: ClosedApproval = Object.freeze({ id: approval.id, callId: approval.callId, toolName: approval.toolName, outcome, closedAt: Date.now() });
    this.recent.push(entry);
    if (this.recent.length > MAX_CLOSED) this.recent.shift();
    this.notify({ type: 'resolved', ...entry });
    return true;
  }

  /** Hand a person's decision to a waiting approval; false (and nothing done) when it is no longer waiting. */
  decide(id: string, decision: ToolApprovalDecision): boolean {
    const entry = this.waiting.get(id);
    if (entry === undefined) return false;
    entry.settle(decision);
    return true;
  }

  pending(): readonly PendingApproval[] {
    return [...this.waiting.values()].map((entry) => entry.approval);
  }

  closed(): readonly ClosedApproval[] {
    return [...this.recent];
  }

  subscribe(listener: (change: ApprovalChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A listener that throws is reported and skipped: the others, and the approval, go on. */
  private notify(change: ApprovalChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        console.warn('toolgate: an approval listener threw', error);
      }
    }
  }
}
