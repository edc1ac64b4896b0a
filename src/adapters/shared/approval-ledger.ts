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
   * may show one call on the card and run the other, so neither call runs
   * on a framework approval. Such ids are kept apart from the ids that ran:
   * the model raises as many as it likes, and they must not push out of
   * the bound an id that already spent its approval.
   */
  raise(callId: string, actionDigest: string, tool: string): void;
  /**
   * The request pinned for a call id, once: a digest approves one execution.
   * Every call the tool set runs takes, and so ends a round of requests.
   */
  take(callId: string): RaisedRequest | undefined;
  /** Spend the framework approval of a call id: true the first time, false for every later call under that id. */
  spend(callId: string): boolean;
  /**
   * Whether the ledger dropped a request it pinned to stay within its bound:
   * a call whose pin is gone may be one of those, and the tool set can no
   * longer tell what its card showed.
   */
  dropped(): boolean;
}

export interface RaisedRequest {
  readonly actionDigest: string;
  /**
   * Whether it was the only request of its tool raised in its round (no call
   * of the tool set ran between them). A standing approval of a tool is given
   * on one card and recorded for the tool alone, so when a reply raised
   * several cards of that tool it cannot tell which one the person approved.
   */
  readonly alone: boolean;
}

/** The requests of one tool raised in one round, shared by their pins. */
interface Round {
  readonly number: number;
  size: number;
}

interface Pin {
  readonly actionDigest: string;
  readonly round: Round;
}

export function createApprovalLedger(limit = 1024): ApprovalLedger {
  const pinned = new Map<string, Pin>();
  const spent = new Set<string>();
  const contested = new Set<string>();
  const rounds = new Map<string, Round>();
  let round = 0;
  let dropped = false;
  const remember = (entries: Set<string>, callId: string): void => {
    entries.add(callId);
    dropOldest(entries, limit);
  };
  return {
    raise(callId, actionDigest, tool) {
      const outstanding = pinned.get(callId);
      if (outstanding !== undefined) {
        if (outstanding.actionDigest !== actionDigest) remember(contested, callId);
        return;
      }
      let current = rounds.get(tool);
      if (current?.number !== round) {
        current = { number: round, size: 0 };
        rounds.set(tool, current);
      }
      current.size += 1;
      pinned.set(callId, { actionDigest, round: current });
      dropped = dropOldest(pinned, limit) || dropped;
    },
    take(callId) {
      round += 1;
      const pin = pinned.get(callId);
      pinned.delete(callId);
      return pin === undefined ? undefined : { actionDigest: pin.actionDigest, alone: pin.round.size === 1 };
    },
    spend(callId) {
      if (spent.has(callId) || contested.has(callId)) return false;
      remember(spent, callId);
      return true;
    },
    dropped: () => dropped,
  };
}

function dropOldest(entries: Map<string, Pin> | Set<string>, limit: number): boolean {
  if (entries.size <= limit) return false;
  const oldest = entries.keys().next();
  if (oldest.done !== true) entries.delete(oldest.value);
  return true;
}
