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
   * the bound an id that already spent its approval. `refused` says which
   * earlier requests the framework refused: those will never run, and no
   * later request awaits an answer beside them (`RaisedRequest.alone`).
   */
  raise(callId: string, actionDigest: string, tool: string, refused?: (callId: string) => boolean): void;
  /** The request pinned for a call id, once: a digest approves one execution. */
  take(callId: string): RaisedRequest | undefined;
  /** Spend the framework approval of a call id: true the first time, false for every later call under that id. */
  spend(callId: string): boolean;
  /**
   * Whether the ledger dropped the request it pinned for this call id to
   * stay within its bound: the tool set can no longer tell what its card
   * showed, nor whether a second request came under the id.
   */
  dropped(callId: string): boolean;
}

export interface RaisedRequest {
  readonly actionDigest: string;
  /**
   * Whether no other request of its tool awaited an answer beside it: none
   * was outstanding when it was raised (`refused` tells which outstanding
   * ones the framework already refused, and will never run), and none was
   * raised after it before it ran. A standing approval of a tool is given on
   * one card and recorded for the tool alone, so when a reply raised several
   * cards of that tool it cannot tell which one the person approved.
   */
  readonly alone: boolean;
}

/** Requests of one tool that awaited an answer together, shared by their pins. */
interface Group {
  size: number;
}

interface Pin {
  readonly actionDigest: string;
  readonly tool: string;
  readonly group: Group;
}

export function createApprovalLedger(limit = 1024): ApprovalLedger {
  const pinned = new Map<string, Pin>();
  const spent = new Set<string>();
  const contested = new Set<string>();
  /** Per tool, the outstanding requests in the order they were raised, and the group a new one joins. */
  const awaiting = new Map<string, { readonly ids: Set<string>; group: Group }>();
  const dropped = new Set<string>();
  const unpin = (callId: string): Pin | undefined => {
    const pin = pinned.get(callId);
    pinned.delete(callId);
    if (pin !== undefined) awaiting.get(pin.tool)?.ids.delete(callId);
    return pin;
  };
  const remember = (entries: Set<string>, callId: string): void => {
    entries.add(callId);
    dropOldest(entries, limit);
  };
  return {
    raise(callId, actionDigest, tool, refused = () => false) {
      const outstanding = pinned.get(callId);
      if (outstanding !== undefined) {
        if (outstanding.actionDigest !== actionDigest) remember(contested, callId);
        return;
      }
      let tools = awaiting.get(tool);
      if (tools === undefined) {
        tools = { ids: new Set(), group: { size: 0 } };
        awaiting.set(tool, tools);
      }
      // The first outstanding request the framework has not refused is one this request awaits an answer beside.
      for (const other of tools.ids) {
        if (!refused(other)) break;
        unpin(other);
      }
      if (tools.ids.size === 0) tools.group = { size: 0 };
      tools.group.size += 1;
      tools.ids.add(callId);
      pinned.set(callId, { actionDigest, tool, group: tools.group });
      if (pinned.size <= limit) return;
      const oldest = pinned.keys().next();
      if (oldest.done === true) return;
      unpin(oldest.value);
      remember(dropped, oldest.value);
    },
    take(callId) {
      const pin = unpin(callId);
      return pin === undefined ? undefined : { actionDigest: pin.actionDigest, alone: pin.group.size === 1 };
    },
    spend(callId) {
      if (spent.has(callId) || contested.has(callId)) return false;
      remember(spent, callId);
      return true;
    },
    dropped: (callId) => dropped.has(callId),
  };
}

function dropOldest(entries: Set<string>, limit: number): void {
  if (entries.size <= limit) return;
  const oldest = entries.keys().next();
  if (oldest.done !== true) entries.delete(oldest.value);
}
