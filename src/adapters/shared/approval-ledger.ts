/**
 * The action digest each framework approval request was raised for, keyed
 * by the framework's call id. When the approved call later runs through the
 * same tool set, exactly this digest is pre-approved, so a call whose action
 * changed in between (another tool version, other configuration) no longer
 * matches and is denied. Bounded: the oldest entries go first.
 */
export interface ApprovalLedger {
  pin(callId: string, actionDigest: string): void;
  /** The pinned digest, once: a digest approves one execution. */
  take(callId: string): string | undefined;
}

export function createApprovalLedger(limit = 1024): ApprovalLedger {
  const pinned = new Map<string, string>();
  return {
    pin(callId, actionDigest) {
      pinned.delete(callId);
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
