import { ConfigurationError, ToolPolicyError } from '../errors/tool-errors.js';
import type { AroundWrapper } from '../hooks/hook-types.js';
import type { ToolApprovalRequest } from './approval-types.js';
import { checkCallStart } from './check-call-start.js';
import { createPendingDecisions } from './pending-decisions.js';
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

/** A backstop: the most calls held for approval look-ups at once. */
const MAX_PENDING = 1024;

export function createLivePolicy(initial: PolicySnapshot): LivePolicy {
  let current = initial;
  const decisions = createPendingDecisions(MAX_PENDING);
  const listeners = new Set<(snapshot: PolicySnapshot) => void>();

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
      decisions.remember({ input, decision, version: snapshot.version });
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
      const entries = decisions.find(request);
      if (entries.length === 0) {
        if ((request.decision.policyVersion ?? initial.version) === current.version) return undefined;
        return { kind: 'deny', reason: 'policy_changed', detail: 'was refused: the policy changed while the approval was pending', matched: [], policyVersion: current.version };
      }
      const snapshot = current;
      return strictest(entries.map((entry) => (entry.version === snapshot.version ? entry.decision : snapshot.recheck(entry.input))));
    },
    settle: (request) => decisions.settle(request),
    guardStart: (next) => async (execution) => {
      const verdict = checkCallStart(decisions.byArguments(execution.arguments), current, initial.version);
      if (verdict.kind === 'refuse') throw new ToolPolicyError(execution.toolName, verdict.reason, { detail: 'was refused: the policy narrowed before the call started', ruleId: verdict.ruleId });
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
