import { mcpToolName } from '../names/mcp-tool-name.js';
import { inferToolView } from './explain-call.js';
import type { ExplainCall, ExplainedRule, PolicyExplanation, PolicySnapshot } from './policy-snapshot-types.js';
import type { ArgumentPolicyInput, MatchedRule, PolicyDecision, PolicyToolView } from './policy-types.js';

type Deny = Extract<PolicyDecision, { kind: 'deny' }>;
type Ask = Extract<PolicyDecision, { kind: 'ask' }>;

/** The upstream tool a delegating call reaches, named as the gateway names the discovered tool. */
interface Target {
  readonly name: string;
  readonly server: string;
  readonly args: unknown;
}

/**
 * The snapshot `createPolicy` returns: a call of a tool that delegates to
 * MCP (`delegatesTo: 'mcp'`, as the Node host's generic MCP caller does), with the arguments
 * `{ server: S, tool: T, arguments }`, is decided on its own rules and also
 * as the upstream tool `mcpToolName(S, T)` would be with those arguments.
 * Without this, a deny on `mcp__S__T` would be dodged by reaching the same
 * tool through the delegating one. The tool's declaration decides, never its
 * name: a renamed delegating tool keeps the target's rules.
 *
 * - A deny on the target (identity or arguments) refuses the call before
 *   anything runs, and is never turned into an approval.
 * - An ask rule on the target makes the call ask, even where the delegating
 *   tool itself is allowed.
 * - An allow on the target does not approve the delegating tool: only rules
 *   on it can (`<its name>(server:S)`), so this can only tighten.
 *
 * Every decision path goes through it: `decideArguments` (dispatch and
 * `prepare`), `recheck` (live narrowing, pending approvals) and `explain`.
 * The target's rate limits are not charged; the delegating tool's own are.
 */
export function governMcpCall(snapshot: PolicySnapshot): PolicySnapshot {
  return Object.freeze<PolicySnapshot>({
    version: snapshot.version,
    mode: snapshot.mode,
    managed: snapshot.managed,
    scope: snapshot.scope,
    warnings: snapshot.warnings,
    rules: snapshot.rules,
    decideIdentity: (input) => snapshot.decideIdentity(input),
    // Every other tool goes straight through: one property read on the hot path, no allocation.
    decideArguments: (input) => (input.tool.delegatesTo === 'mcp' ? decide(snapshot, input, 'decide') : snapshot.decideArguments(input)),
    recheck: (input) => (input.tool.delegatesTo === 'mcp' ? decide(snapshot, input, 'recheck') : snapshot.recheck(input)),
    explain: (call) => explain(snapshot, call),
    isProtectedPath: (path) => snapshot.isProtectedPath(path),
    isInsideWorkspace: (path) => snapshot.isInsideWorkspace(path),
    classifyPath: (path) => snapshot.classifyPath(path),
  });
}

function targetOf(view: PolicyToolView, args: unknown): Target | undefined {
  if (view.delegatesTo !== 'mcp' || typeof args !== 'object' || args === null) return undefined;
  const { server, tool, arguments: inner } = args as { server?: unknown; tool?: unknown; arguments?: unknown };
  if (typeof server !== 'string' || typeof tool !== 'string') return undefined;
  return { name: mcpToolName(server, tool), server, args: inner ?? {} };
}

function targetView(tool: PolicyToolView, name: string): PolicyToolView {
  return { ...tool, name, version: undefined, source: 'mcp', delegatesTo: undefined };
}

/** What the target's rules say: a deny, an ask a rule made, or nothing. */
function judgeTarget(snapshot: PolicySnapshot, input: ArgumentPolicyInput, target: Target): Deny | Ask | undefined {
  const tool = targetView(input.tool, target.name);
  const identity = snapshot.decideIdentity({ tool, agent: input.agent });
  if (identity.kind === 'deny') return identity;
  // `recheck`, not `decideArguments`: the call's own decision takes the rate-limit token.
  const decision = snapshot.recheck({ ...input, tool, args: target.args, target: { server: target.server } });
  if (decision.kind === 'deny') return decision;
  return decision.kind === 'ask' && decision.reason === 'rule' ? decision : undefined;
}

function refusal(decision: Deny, name: string): PolicyDecision {
  return {
    kind: 'deny',
    reason: decision.reason,
    detail: `${decision.detail ?? 'was refused by policy'} (it calls ${name})`,
    matched: decision.matched,
    ...(decision.policyVersion === undefined ? {} : { policyVersion: decision.policyVersion }),
  };
}

function withTargetAsk(own: PolicyDecision, asked: Ask): PolicyDecision {
  if (own.kind === 'deny') return own;
  const matched: readonly MatchedRule[] = [...asked.matched.filter((rule) => rule.decision === 'ask'), ...own.matched];
  if (own.kind === 'ask') return { ...own, matched };
  return { kind: 'ask', reason: 'rule', matched, ...(own.policyVersion === undefined ? {} : { policyVersion: own.policyVersion }) };
}

/** `decide` takes the call's rate-limit token (`decideArguments`); `recheck` does not. */
function decide(snapshot: PolicySnapshot, input: ArgumentPolicyInput, how: 'decide' | 'recheck'): PolicyDecision {
  const own = (): PolicyDecision => (how === 'decide' ? snapshot.decideArguments(input) : snapshot.recheck(input));
  const target = targetOf(input.tool, input.args);
  if (target === undefined) return own();
  const verdict = judgeTarget(snapshot, input, target);
  if (verdict?.kind === 'deny') return refusal(verdict, target.name);
  const decision = own();
  return verdict === undefined ? decision : withTargetAsk(decision, verdict);
}

function explain(snapshot: PolicySnapshot, call: ExplainCall): PolicyExplanation {
  const base = snapshot.explain(call);
  const tool = typeof call.tool === 'string' ? inferToolView(call.tool, call.target, call.args) : call.tool;
  const target = targetOf(tool, call.args);
  if (target === undefined) return base;
  const targeted = snapshot.explain({
    ...call,
    tool: typeof call.tool === 'string' ? target.name : targetView(call.tool, target.name),
    target: { server: target.server },
    args: target.args,
  });
  const notes = Object.freeze([...base.notes, `${tool.name} calls ${target.name}: the deny and ask rules on that tool apply to this call`]);
  const verdict = targeted.decision;
  const counts = verdict.kind === 'deny' || (verdict.kind === 'ask' && verdict.reason === 'rule');
  if (!counts) return Object.freeze({ ...base, notes });
  const decision = verdict.kind === 'deny' ? refusal(verdict, target.name) : withTargetAsk(base.decision, verdict);
  // The target's deny and ask rules first (its winner stays the winner), then the delegating tool's own, none of them winning.
  const rules: readonly ExplainedRule[] =
    decision === base.decision
      ? base.rules
      : [...targeted.rules.filter((rule) => rule.decision !== 'allow'), ...base.rules.map((rule) => Object.freeze({ ...rule, winner: false }))];
  return Object.freeze({ ...base, decision, rules: Object.freeze(rules), guardrail: base.guardrail ?? targeted.guardrail, notes });
}
