import { actionDigestTarget } from '../action/action-digest-target.js';
import type { ResolvedAction } from '../action/resolved-action.js';
import { ConfigurationError, ToolPolicyError } from '../errors/tool-errors.js';
import type { AroundWrapper } from '../hooks/hook-types.js';
import type { ToolApprovalRequest } from './approval-types.js';
import type { ExplainCall, PolicyExplanation, PolicySnapshot } from './policy-snapshot-types.js';
import type { ArgumentPolicyInput, IdentityPolicyInput, PolicyDecision, ToolPolicy } from './policy-types.js';

export type ReplaceResult = { readonly ok: true; readonly version: number } | { readonly ok: false; readonly error: ConfigurationError; readonly version: number };

/**
 * A policy whose snapshot can be replaced while calls are in flight. It is
 * itself a `ToolPolicy`, so a registry built with it always decides on the
 * current snapshot; every decision records the version that made it.
 */
export interface LivePolicy extends ToolPolicy {
  readonly current: PolicySnapshot;
  /** Swap in a newer snapshot (its version must be higher). Refused ⇒ the current one stays. */
  replace(next: PolicySnapshot): ReplaceResult;
  /** Build and swap; a build that throws keeps the current snapshot (a failed reload never widens). */
  reload(build: () => PolicySnapshot): ReplaceResult;
  /**
   * The argument decision for a pending approval, on the current snapshot:
   * the recorded one when nothing changed, a fresh re-check when the policy
   * was replaced since, a deny when the call is unknown and the policy
   * changed (fail closed), undefined when unknown and unchanged.
   */
  decisionFor(request: ToolApprovalRequest): PolicyDecision | undefined;
  /** Forget a pending approval once it is resolved. */
  settle(request: ToolApprovalRequest): void;
  /**
   * An `around` wrapper that re-checks a call right before its body starts:
   * a call decided by an older snapshot runs only if the current one still
   * allows it. Install it as the first `hooks.around` entry.
   */
  readonly guardStart: AroundWrapper;
  onChange(listener: (snapshot: PolicySnapshot) => void): () => void;
  /** `explain(call)` on the current snapshot. */
  explain(call: ExplainCall): PolicyExplanation;
}

interface Decided {
  readonly input: ArgumentPolicyInput;
  readonly decision: PolicyDecision;
  readonly version: number;
}

/** A backstop: the most calls held for approval look-ups at once. */
const MAX_PENDING = 1024;

export function createLivePolicy(initial: PolicySnapshot): LivePolicy {
  let current = initial;
  // A call's arguments hold its decision for as long as the call lives; nothing else holds it strongly.
  const byArgs = new WeakMap<object, Decided>();
  // Approval requests carry the resolved action, not the arguments: pending calls are found by its fingerprint.
  // The lists only refer to the decisions, so a call that ends without reaching a person (an allowed read, a
  // call cancelled before it was asked) leaves nothing here once its arguments are collected.
  const pending = new Map<string, WeakRef<Decided>[]>();
  let pendingCount = 0;
  const listeners = new Set<(snapshot: PolicySnapshot) => void>();

  const drop = (key: string, ref: WeakRef<Decided>): void => {
    const list = pending.get(key);
    const index = list === undefined ? -1 : list.indexOf(ref);
    if (list === undefined || index === -1) return;
    list.splice(index, 1);
    pendingCount -= 1;
    if (list.length === 0) pending.delete(key);
  };
  const collected = new FinalizationRegistry<{ readonly key: string; readonly ref: WeakRef<Decided> }>(({ key, ref }) => drop(key, ref));

  const remember = (entry: Decided): void => {
    // Arguments are an object once validated; anything else is not held, and its approval fails closed as unknown.
    if (typeof entry.input.args !== 'object' || entry.input.args === null) return;
    byArgs.set(entry.input.args, entry);
    if (entry.decision.kind === 'deny') return;
    const key = fingerprint(toolKey(entry.input), entry.input.agent, entry.input.action);
    const ref = new WeakRef(entry);
    const list = pending.get(key) ?? [];
    list.push(ref);
    pending.set(key, list);
    pendingCount += 1;
    collected.register(entry, { key, ref });
    if (pendingCount > MAX_PENDING) {
      const oldest = pending.entries().next().value;
      if (oldest !== undefined) drop(oldest[0], oldest[1][0] as WeakRef<Decided>);
    }
  };

  const swap = (next: PolicySnapshot): ReplaceResult => {
    if (typeof next !== 'object' || next === null || typeof next.recheck !== 'function') {
      return { ok: false, error: new ConfigurationError('policy', 'must be a snapshot built by createPolicy'), version: current.version };
    }
    if (!(next.version > current.version)) {
      return { ok: false, error: new ConfigurationError('policy.version', 'must be higher than the current snapshot version'), version: current.version };
    }
    current = next;
    for (const listener of listeners) listener(next);
    return { ok: true, version: next.version };
  };

  const live: LivePolicy = {
    get version() {
      return current.version;
    },
    get current() {
      return current;
    },
    decideIdentity: (input: IdentityPolicyInput) => current.decideIdentity(input),
    classifyPath: (path: string) => current.classifyPath(path),
    decideArguments(input: ArgumentPolicyInput): PolicyDecision {
      const snapshot = current;
      const decision = snapshot.decideArguments(input);
      remember({ input, decision, version: snapshot.version });
      return decision;
    },
    replace: swap,
    reload(build) {
      let next: PolicySnapshot;
      try {
        next = build();
      } catch (error) {
        const wrapped = error instanceof ConfigurationError ? error : new ConfigurationError('policy', 'could not be rebuilt; the current snapshot stays');
        return { ok: false, error: wrapped, version: current.version };
      }
      return swap(next);
    },
    decisionFor(request) {
      const entries = (pending.get(fingerprint(request.toolName, request.agent, request.resolved)) ?? []).flatMap((ref) => ref.deref() ?? []);
      if (entries.length === 0) {
        if ((request.decision.policyVersion ?? initial.version) === current.version) return undefined;
        return { kind: 'deny', reason: 'policy_changed', detail: 'was refused: the policy changed while the approval was pending', matched: [], policyVersion: current.version };
      }
      const snapshot = current;
      return strictest(entries.map((entry) => (entry.version === snapshot.version ? entry.decision : snapshot.recheck(entry.input))));
    },
    settle(request) {
      const key = fingerprint(request.toolName, request.agent, request.resolved);
      const first = pending.get(key)?.[0];
      if (first !== undefined) drop(key, first);
    },
    guardStart: (next) => async (execution) => {
      const args = execution.arguments;
      const decided = typeof args === 'object' && args !== null ? byArgs.get(args) : undefined;
      const snapshot = current;
      if (decided === undefined || decided.version !== snapshot.version) {
        const now = decided === undefined ? undefined : snapshot.recheck(decided.input);
        const narrowedToAsk = now?.kind === 'ask' && decided?.decision.kind === 'allow';
        if (now === undefined || now.kind === 'deny' || narrowedToAsk) {
          // Unknown calls are refused only when some replacement happened since (version > initial).
          if (decided !== undefined || snapshot.version !== initial.version) {
            const reason = now?.kind === 'deny' ? now.reason : 'policy_changed';
            throw new ToolPolicyError(execution.toolName, reason, { detail: 'was refused: the policy narrowed before the call started', ruleId: now?.matched.find((rule) => rule.decision === 'deny')?.id });
          }
        }
      }
      return next(execution);
    },
    explain: (call) => current.explain(call),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return Object.freeze(live);
}

function strictest(decisions: readonly PolicyDecision[]): PolicyDecision {
  return decisions.find((decision) => decision.kind === 'deny') ?? decisions.find((decision) => decision.kind === 'ask') ?? (decisions[0] as PolicyDecision);
}

function toolKey(input: ArgumentPolicyInput): string {
  return input.tool.version === undefined ? input.tool.name : `${input.tool.name}@${input.tool.version}`;
}

/** One pending call: its tool, agent and where it acts (the same resolved action the approval request carries). */
function fingerprint(tool: string, agent: string | undefined, action: ResolvedAction | undefined): string {
  return JSON.stringify([tool, agent ?? null, actionDigestTarget(action)]);
}
