/**
 * The action digest each framework approval request was raised for, keyed
 * by the framework's call id. When the approved call later runs through the
 * same tool set, exactly this digest is pre-approved, so a call whose action
 * changed in between (another tool version, other configuration) no longer
 * matches and is denied. It also remembers which call ids already spent a
 * framework approval: the model chooses call ids, and a framework keeps an
 * approval per call id for the whole run, so a later call reusing an
 * approved id (or a replayed request) would otherwise run on that approval.
 * Bounded: the oldest entries go first.
 */
export interface ApprovalLedger {
  /**
   * A framework raised an approval request for this call: pin its digest.
   * The first pin wins, so what the human saw is never replaced by what the
   * call would do now. A second request under the same id for another action, while the first
   * is still outstanding, is a model sending two calls under one id: the
   * framework keeps one approval for the id and may show one call on the
   * card and run the other, so the id spends its approval there and then,
   * and neither call runs on a framework approval.
   */
  raise(callId: string, actionDigest: string): void;
  /** The pinned digest, once: a digest approves one execution. */
  take(callId: string): string | undefined;
  /** Spend the framework approval of a call id: true the first time, false for every later call under that id. */
  spend(callId: string): boolean;
}

export function createApprovalLedger(limit = 1024): ApprovalLedger {
  const pinned = new Map<string, string>();
  const spent = new Set<string>();
  const spend = (callId: string): boolean => {
    if (spent.has(callId)) return false;
    spent.add(callId);
    dropOldest(spent, limit);
    return true;
  };
  return {
    raise(callId, actionDigest) {
      const outstanding = pinned.get(callId);
      if (outstanding === undefined) {
        pinned.set(callId, actionDigest);
        dropOldest(pinned, limit);
      } else if (outstanding !== actionDigest) spend(callId);
    },
    take(callId) {
      const digest = pinned.get(callId);
      pinned.delete(callId);
      return digest;
    },
    spend,
  };
}

function dropOldest(entries: Map<string, string> | Set<string>, limit: number): void {
  if (entries.size <= limit) return;
  const oldest = entries.keys().next();
  if (oldest.done !== true) entries.delete(oldest.value);
}
