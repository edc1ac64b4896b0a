import { actionDigestTarget } from '../action/action-digest-target.js';
import type { ResolvedAction } from '../action/resolved-action.js';
import type { ArgumentPolicyInput, PolicyDecision } from './policy-types.js';

/** One argument decision, with the snapshot version that made it. */
export interface Decided {
  readonly input: ArgumentPolicyInput;
  readonly decision: PolicyDecision;
  readonly version: number;
}

/** Where a pending approval's call is found again: its tool key, agent and resolved action. */
export interface PendingCallKey {
  readonly toolName: string;
  readonly agent: string | undefined;
  readonly resolved: ResolvedAction | undefined;
}

/** The decisions of calls still alive, found by their arguments or, for an approval, by what the call does. */
export interface PendingDecisions {
  remember(entry: Decided): void;
  /** The decision a call's arguments were given, while the call lives. */
  byArguments(args: unknown): Decided | undefined;
  /** The live decisions of calls that match a pending approval. */
  find(key: PendingCallKey): Decided[];
  /** Forget the oldest call that matches a resolved approval. */
  settle(key: PendingCallKey): void;
}

/**
 * A call's arguments hold its decision for as long as the call lives;
 * nothing else holds it strongly. Approval requests carry the resolved
 * action, not the arguments: pending calls are found by its fingerprint.
 * The lists only refer to the decisions, so a call that ends without
 * reaching a person (an allowed read, a call cancelled before it was asked)
 * leaves nothing here once its arguments are collected. `maxPending` is a
 * backstop on the calls held at once: beyond it the oldest is dropped.
 */
export function createPendingDecisions(maxPending: number): PendingDecisions {
  const byArgs = new WeakMap<object, Decided>();
  const pending = new Map<string, WeakRef<Decided>[]>();
  let pendingCount = 0;

  const drop = (key: string, ref: WeakRef<Decided>): void => {
    const list = pending.get(key);
    const index = list === undefined ? -1 : list.indexOf(ref);
    if (list === undefined || index === -1) return;
    list.splice(index, 1);
    pendingCount -= 1;
    if (list.length === 0) pending.delete(key);
  };
  const collected = new FinalizationRegistry<{ readonly key: string; readonly ref: WeakRef<Decided> }>(({ key, ref }) => drop(key, ref));

  return {
    remember(entry) {
      // Arguments are an object once validated; anything else is not held, and its approval fails closed as unknown.
      if (typeof entry.input.args !== 'object' || entry.input.args === null) return;
      byArgs.set(entry.input.args, entry);
      if (entry.decision.kind === 'deny') return;
      const key = fingerprint({ toolName: toolKey(entry.input), agent: entry.input.agent, resolved: entry.input.action });
      const ref = new WeakRef(entry);
      const list = pending.get(key) ?? [];
      list.push(ref);
      pending.set(key, list);
      pendingCount += 1;
      collected.register(entry, { key, ref });
      if (pendingCount > maxPending) {
        const oldest = pending.entries().next().value;
        if (oldest !== undefined) drop(oldest[0], oldest[1][0] as WeakRef<Decided>);
      }
    },
    byArguments: (args) => (typeof args === 'object' && args !== null ? byArgs.get(args) : undefined),
    find: (key) => (pending.get(fingerprint(key)) ?? []).flatMap((ref) => ref.deref() ?? []),
    settle(key) {
      const text = fingerprint(key);
      const first = pending.get(text)?.[0];
      if (first !== undefined) drop(text, first);
    },
  };
}

function toolKey(input: ArgumentPolicyInput): string {
  return input.tool.version === undefined ? input.tool.name : `${input.tool.name}@${input.tool.version}`;
}

/** One pending call: its tool, agent and where it acts (the same resolved action the approval request carries). */
function fingerprint(key: PendingCallKey): string {
  return JSON.stringify([key.toolName, key.agent ?? null, actionDigestTarget(key.resolved)]);
}
