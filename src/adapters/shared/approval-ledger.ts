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
   * A framework raised an approval request for this call of `tool`: pin its
   * digest. The first pin wins, so what the human saw is never replaced by
   * what the call would do now. A second request under the same id for
   * another action, while the first is still outstanding, is a model sending
   * two calls under one id: the framework keeps one approval for the id and
   * may show one call on the card and run the other, so the id spends its
   * approval there and then, and neither call runs on a framework approval.
   */
  raise(callId: string, actionDigest: string, tool: string): void;
  /** The pinned digest, once: a digest approves one execution. Every call the tool set runs takes, and ends a round of requests. */
  take(callId: string): string | undefined;
  /** Spend the framework approval of a call id: true the first time, false for every later call under that id. */
  spend(callId: string): boolean;
  /**
   * Whether this call's request was the only one of its tool outstanding in
   * its round (no call of the tool set ran between them). A standing approval
   * of a tool is given on one card and recorded for the tool alone, so when
   * a reply raised several cards of that tool it cannot tell which one the
   * person approved.
   */
  raisedAlone(callId: string): boolean;
}

interface Pin {
  readonly actionDigest: string;
  readonly tool: string;
  readonly round: number;
}

export function createApprovalLedger(limit = 1024): ApprovalLedger {
  const pinned = new Map<string, Pin>();
  const spent = new Set<string>();
  const together = new Set<string>();
  let round = 0;
  const remember = (entries: Set<string>, callId: string): void => {
    entries.add(callId);
    dropOldest(entries, limit);
  };
  const spend = (callId: string): boolean => {
    if (spent.has(callId)) return false;
    remember(spent, callId);
    return true;
  };
  return {
    raise(callId, actionDigest, tool) {
      const outstanding = pinned.get(callId);
      if (outstanding !== undefined) {
        if (outstanding.actionDigest !== actionDigest) spend(callId);
        return;
      }
      for (const [other, pin] of pinned) {
        if (pin.tool !== tool || pin.round !== round) continue;
        remember(together, other);
        remember(together, callId);
      }
      pinned.set(callId, { actionDigest, tool, round });
      dropOldest(pinned, limit);
    },
    take(callId) {
      round += 1;
      const pin = pinned.get(callId);
      pinned.delete(callId);
      return pin?.actionDigest;
    },
    spend,
    raisedAlone: (callId) => !together.has(callId),
  };
}

function dropOldest(entries: Map<string, Pin> | Set<string>, limit: number): void {
  if (entries.size <= limit) return;
  const oldest = entries.keys().next();
  if (oldest.done !== true) entries.delete(oldest.value);
}
