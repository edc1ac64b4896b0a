/**
 * The action digest each framework approval request was raised for, keyed
 * by the framework's call id. When the approved call later runs through the
 * same tool set, exactly this digest is pre-approved, so a call whose action
 * changed in between (another tool version, other configuration) no longer
 * matches and is denied. Bounded: the oldest entries go first.
 */
export interface ApprovalLedger {
  /**
   * Pin the digest a request was raised for. The first pin wins: frameworks
   * re-evaluate `needsApproval` when an approved call resumes, and that must
   * not replace what the human saw with what the call would do now.
   */
  pin(callId: string, actionDigest: string): void;
  /** The pinned digest, once: a digest approves one execution. */
  take(callId: string): string | undefined;
}

export function createApprovalLedger(limit = 1024): ApprovalLedger {
  const pinned = new Map<string, string>();
  return {
    pin(callId, actionDigest) {
      if (pinned.has(callId)) return;
      pinned.set(callId, actionDigest);
      if (pinned.size > limit) {
        const oldest = pinned.keys().next();
        if (oldest.done !== true) pinned.delete(oldest.value);
      }
    },
    take(callId) {
      const digest = pinned.get(callId);
      pinned.delete(callId);
      return digest;
    },
  };
}
