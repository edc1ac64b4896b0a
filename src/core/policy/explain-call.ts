import type { PolicyTarget, ToolPolicyClass } from '../tools/tool-types.js';
import { describeRule } from './describe-rule.js';
import type { PolicyEvaluation } from './evaluate-call.js';
import type { ApprovalMode, ExplainCall, ExplainedRule, PolicyExplanation } from './policy-snapshot-types.js';
import type { ArgumentPolicyInput, IdentityPolicyInput, PolicyDecision, PolicyToolView } from './policy-types.js';
import type { CompiledRule } from './rule-types.js';

export interface ExplainContext {
  readonly version: number;
  readonly mode: ApprovalMode;
  readonly rules: readonly CompiledRule[];
  readonly evaluate: (input: ArgumentPolicyInput) => PolicyEvaluation;
  readonly identity: (input: IdentityPolicyInput) => PolicyDecision;
}

/**
 * `explain(call)`: the decision, every rule that matched with its source,
 * the argv / paths / host / server considered, and the mode. Takes no
 * rate-limit token and has no side effect.
 */
export function explainCall(call: ExplainCall, context: ExplainContext): PolicyExplanation {
  const tool = typeof call.tool === 'string' ? inferToolView(call.tool, call.target, call.args) : call.tool;
  const input: ArgumentPolicyInput = { tool, agent: call.agent, args: call.args ?? {}, target: call.target, gateApproved: call.gateApproved === true };
  const identity = context.identity({ tool, agent: call.agent });
  const evaluation: PolicyEvaluation | undefined = identity.kind === 'deny' ? undefined : context.evaluate(input);
  const decision = evaluation?.decision ?? identity;
  const winner = evaluation?.verdict?.winner;
  const matchedRules =
    evaluation?.verdict?.matched ?? context.rules.filter((rule) => identity.matched.some((entry) => entry.id === rule.id));
  const rules: ExplainedRule[] = matchedRules.map((rule) =>
    Object.freeze({ ...describeRule(rule), winner: winner === undefined ? identity.kind === 'deny' : rule === winner }),
  );
  const view = evaluation?.view;
  const considered: { argv?: readonly string[]; paths?: readonly string[]; host?: string; server?: string } = {};
  if (view?.argv !== undefined) considered.argv = view.argv;
  if (view !== undefined && view.paths.length > 0) considered.paths = view.paths.map((path) => path.relative ?? path.path);
  if (view?.host !== undefined) considered.host = view.host;
  if (call.target?.server !== undefined) considered.server = call.target.server;
  const notes = [...(evaluation?.notes ?? ['a tool-wide deny rule decided before any argument'])];
  return Object.freeze({
    decision,
    version: context.version,
    mode: context.mode,
    rules: Object.freeze(rules),
    guardrail: evaluation?.guardrail === undefined ? undefined : { reason: evaluation.guardrail.reason, detail: evaluation.guardrail.detail },
    considered: Object.freeze(considered),
    notes: Object.freeze(notes),
  });
}

/**
 * A tool known only by name: its class follows from the target it names.
 * One that names an MCP server and, in its arguments, a `server` and a
 * `tool` is taken to reach that upstream tool: judging the upstream tool's
 * rules as well can only tighten what is explained.
 */
export function inferToolView(name: string, target: PolicyTarget | undefined, args: unknown): PolicyToolView {
  const policy: Required<Omit<ToolPolicyClass, 'egress'>> & { egress: ToolPolicyClass['egress'] | undefined } = {
    fsScoped: target?.path !== undefined || target?.paths !== undefined,
    fsWrite: false,
    spawnsProcess: target?.command !== undefined,
    egress: target?.url !== undefined ? 'http' : target?.server !== undefined ? 'mcp' : target?.query !== undefined ? 'search' : undefined,
    os: false,
    requiresGate: false,
  };
  const readOnly = !policy.spawnsProcess && policy.egress === undefined;
  return {
    name,
    version: undefined,
    source: 'plugin',
    effect: policy.spawnsProcess ? 'execute' : policy.egress !== undefined ? 'external' : 'read',
    risk: policy.spawnsProcess ? 'high' : policy.egress !== undefined ? 'medium' : 'low',
    policy,
    permissions: [],
    readOnly,
    ...(policy.egress === 'mcp' && namesUpstreamTool(args) ? { delegatesTo: 'mcp' as const } : {}),
  };
}

function namesUpstreamTool(args: unknown): boolean {
  if (typeof args !== 'object' || args === null) return false;
  const { server, tool } = args as { server?: unknown; tool?: unknown };
  return typeof server === 'string' && typeof tool === 'string';
}
