import type { ToolRisk } from '../tools/tool-types.js';
import { checkGuardrails, type GuardrailConfig, type GuardrailDenial, type GuardrailView } from './check-guardrails.js';
import { evaluateRules, type RuleVerdict } from './evaluate-rules.js';
import { fileCommandPaths } from './file-command-paths.js';
import { guardrailView } from './guardrail-view.js';
import type { ArgumentPolicyInput, MatchedRule, PolicyDecision, PolicyToolView } from './policy-types.js';
import type { RateCheck } from './rate-limiter.js';
import type { RuleIndex } from './rule-index.js';
import type { CompiledRule } from './rule-types.js';
import { touchesProtected, type ProtectedPathRules } from './touches-protected.js';

/** Everything one decision looked at; `explain` renders it. */
export interface PolicyEvaluation {
  readonly decision: PolicyDecision;
  readonly guardrail: GuardrailDenial | undefined;
  readonly verdict: RuleVerdict | undefined;
  readonly view: GuardrailView;
  readonly notes: readonly string[];
}

/** What one snapshot decides with, fixed when it is built. */
export interface CallEvaluator extends ProtectedPathRules {
  readonly version: number;
  readonly config: GuardrailConfig;
  readonly rules: RuleIndex;
  readonly takeToken: (tool: string, agent: string | undefined) => RateCheck;
  readonly approveAtRisk: ToolRisk | undefined;
}

export const RISK_ORDER: Readonly<Record<ToolRisk, number>> = { low: 0, medium: 1, high: 2, critical: 3 };
export const NO_RULES: readonly MatchedRule[] = Object.freeze([]);

/** Whether the tool's risk is at or above the snapshot's `approveAtRisk`, so a person is asked. */
export function riskNeedsAsk(tool: PolicyToolView, approveAtRisk: ToolRisk | undefined): boolean {
  return approveAtRisk !== undefined && RISK_ORDER[tool.risk] >= RISK_ORDER[approveAtRisk];
}

export function matchedOf(list: readonly CompiledRule[]): readonly MatchedRule[] {
  return list.length === 0 ? NO_RULES : list.map((rule) => rule.matched);
}

/**
 * Decide one call on its arguments: the guardrail floor first, then the
 * rules, then (when `consume`) a rate-limit token, then what makes an allow
 * an ask (an ask rule, a protected path, the tool's risk). Per-call
 * decisions are fresh literals with the version inline: no spread, no
 * freeze, both of which cost more than the decision.
 */
export function evaluateCall(input: ArgumentPolicyInput, consume: boolean, evaluator: CallEvaluator): PolicyEvaluation {
  const { version, roots } = evaluator;
  const view = guardrailView(input, roots);
  const notes: string[] = [];
  const guardrail = checkGuardrails(input, evaluator.config, view);
  if (guardrail !== undefined) {
    const decision: PolicyDecision =
      guardrail.recoverable === true
        ? { kind: 'deny', reason: guardrail.reason, detail: guardrail.detail, recoverable: true, matched: NO_RULES, policyVersion: version }
        : { kind: 'deny', reason: guardrail.reason, detail: guardrail.detail, matched: NO_RULES, policyVersion: version };
    return { decision, guardrail, verdict: undefined, view, notes };
  }
  // A tool that runs a fixed argv gives the policy no command: its declared argv stands for it.
  const argv = view.argv ?? input.tool.fixedArgv;
  const fileArguments = argv === undefined ? undefined : fileCommandPaths(argv, input.action?.command, roots);
  const verdict = evaluateRules(evaluator.rules.forCall(input, fileArguments !== undefined), {
    tool: input.tool.name,
    argv,
    paths: view.paths,
    fileArguments,
    argumentPaths: input.action?.command?.arguments,
    cwd: input.action?.command?.cwd,
    host: view.host,
    server: input.target?.server,
    args: input.args,
    rootless: roots.length === 0,
    roots,
  });
  const matched = matchedOf(verdict.matched);
  if (verdict.decision === 'deny') {
    const ruleId = verdict.winner?.id ?? '';
    const unreadNotes = unreadOf(verdict);
    notes.push(...unreadNotes);
    const unread = unreadNotes.length > 0 ? `: ${unreadNotes.join('; ')}` : '';
    return { decision: { kind: 'deny', reason: 'rule_denied', detail: `was refused by policy rule "${ruleId.slice(0, 80)}"${unread}`, matched, policyVersion: version }, guardrail, verdict, view, notes };
  }
  if (consume) {
    const rate = evaluator.takeToken(input.tool.name, input.agent);
    if (!rate.ok) {
      notes.push(`rate limit per ${rate.scope}`);
      return { decision: { kind: 'deny', reason: 'rate_limited', retryAfterMs: rate.retryAfterMs, matched, policyVersion: version }, guardrail, verdict, view, notes };
    }
  }
  const ask = askReason(input, view, verdict, evaluator, notes);
  const decision: PolicyDecision = ask === undefined ? { kind: 'allow', matched, policyVersion: version } : { kind: 'ask', reason: ask, matched, policyVersion: version };
  return { decision, guardrail, verdict, view, notes };
}

/** Why a deny or ask covers a command it may not name: toolgate could not read every command it runs. */
const UNREAD = 'toolgate could not read every command this one runs (a program word the shell works out, or past what it reads), so every deny or ask of a command covers it';

/** Why a deny or ask covers arguments it may not name: no argument pattern could read them to their end. */
const UNREAD_ARGUMENTS = "toolgate could not read this call's arguments to their end against an argument pattern (past the steps one call may take, or arguments with no JSON form), so every deny or ask of an argument pattern covers them";

/** What the winning deny or ask could not read, each said once. */
function unreadOf(verdict: RuleVerdict): string[] {
  return [...(verdict.unread === true ? [UNREAD] : []), ...(verdict.unreadArguments === true ? [UNREAD_ARGUMENTS] : [])];
}

/** Why a call the floor and the rules let through still asks a person, the first reason winning; each reason is noted. */
function askReason(input: ArgumentPolicyInput, view: GuardrailView, verdict: RuleVerdict, evaluator: CallEvaluator, notes: string[]): string | undefined {
  let ask: string | undefined = verdict.decision === 'ask' ? 'rule' : undefined;
  if (ask !== undefined) notes.push(...unreadOf(verdict));
  if (touchesProtected(input, view, evaluator)) {
    notes.push(input.tool.policy.fsWrite ? 'a protected path is never auto-approved' : 'a protected path is read only when a person says so');
    ask ??= 'protected_path';
  }
  if (riskNeedsAsk(input.tool, evaluator.approveAtRisk)) {
    notes.push(`risk ${input.tool.risk} is at or above approveAtRisk ${evaluator.approveAtRisk ?? ''}`);
    ask ??= 'risk';
  }
  if (verdict.decision === undefined) notes.push(input.tool.readOnly ? 'no rule matched: read-only tools allow' : 'no rule matched: the tool default applies (governed calls go to the approval regime)');
  return ask;
}
