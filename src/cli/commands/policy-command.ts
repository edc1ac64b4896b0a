import { homedir } from 'node:os';
import { ConfigurationError, type PolicyExplanation, type PromptContext, type ToolApprovalDecision, type ToolCall } from '../../core/internal.js';
import { parseJsonOrThrow } from '../../core/errors/parse-json-or-throw.js';
import { CliError } from '../cli-error.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { buildPolicy } from '../runtime/build-policy.js';
import { importPolicyFile } from '../runtime/import-policy-file.js';
import { openGateway, servedBuiltins, type Gateway } from '../runtime/open-gateway.js';
import type { PolicyImportScope } from '../runtime/policy-import-scope.js';
import { terminalJson } from '../terminal-text.js';

/** What a call would come to, once: it runs, a person is asked, or it is denied, and why. */
export interface ExplainedOutcome {
  readonly decision: 'runs' | 'asks' | 'denied';
  readonly reason: string;
}

/**
 * `toolgate policy explain <tool> <json>`: one decision with its trace in
 * order — what was considered, the floor, the rules, the mode — for a
 * built-in or an upstream tool (the servers are connected only for one).
 * The call is taken through the real pipeline up to its approval, where the
 * gateway's own mode logic decides; it is refused there, so nothing runs
 * and nothing is journaled.
 */
export async function runPolicyExplain(config: ResolvedConfig, tool: string, json: string, output: CliOutput): Promise<void> {
  const args = parseJsonOrThrow(json, () => new CliError('usage', 'The arguments must be a JSON object.'));
  const builtin = servedBuiltins(config).some((definition) => definition.name === tool);
  const gateway = await openGateway(config, { connectServers: !builtin, journalCalls: false });
  try {
    const registry = gateway.registry();
    const definition = registry.get(tool);
    if (definition === undefined) throw new CliError('usage', `Unknown tool "${tool}". See toolgate tools.`);
    const call = { callId: 'explain', name: tool, arguments: args };
    const plan = await registry.prepare(call, gateway.context);
    let target;
    try {
      target = definition.policyTarget?.(args);
    } catch {
      target = undefined;
    }
    const info = registry.list().find((entry) => entry.key === tool || entry.name === tool);
    const explanation = gateway.policy.current.explain({ tool: info?.policyView ?? tool, args, agent: config.agent, ...(target === undefined ? {} : { target }) });
    const outcome = plan.status === 'denied' ? { decision: 'denied' as const, reason: plan.reason ?? 'denied' } : plan.status === 'ready' ? { decision: 'runs' as const, reason: 'not governed, and no rule asks' } : await approvalVerdict(gateway, call);
    const result = { tool, ...outcome, mode: gateway.controller.mode, governed: info?.governed ?? false, plan: { status: plan.status, reason: plan.reason, actionDigest: plan.actionDigest }, explanation };
    output.result(result, () => renderExplanation(tool, outcome, gateway.controller.mode, explanation));
  } finally {
    await gateway.close();
  }
}

/**
 * What the gateway's approver makes of a call that reaches approval: the
 * mode may approve it (accept-edits, auto), refuse it (plan) or leave it to
 * a person. The engine is always answered with a rejection, so the call
 * never runs.
 */
async function approvalVerdict(gateway: Gateway, call: ToolCall): Promise<ExplainedOutcome> {
  let asked: PromptContext | undefined;
  let verdict: ToolApprovalDecision | undefined;
  const decide = gateway.controller.confirmWith((_request, context) => {
    asked = context;
    return Promise.resolve({ outcome: 'reject', reason: 'policy explain asks nobody' });
  });
  await gateway.registry().dispatch(call, {
    ...gateway.context,
    approval: {
      confirm: async (request, signal) => {
        verdict = await decide(request, signal);
        return { outcome: 'reject', reason: 'policy explain runs nothing' };
      },
    },
  });
  if (asked !== undefined) return { decision: 'asks', reason: `a person approves it: ${ASK_REASONS[asked.reason] ?? asked.reason}` };
  if (verdict?.outcome === 'approve') return { decision: 'runs', reason: `approved by ${verdict.by ?? 'the approver'}` };
  return { decision: 'denied', reason: verdict?.outcome === 'reject' ? (verdict.reason ?? 'rejected') : 'the approval stage did not run' };
}

const ASK_REASONS: Readonly<Record<string, string>> = {
  governed: 'every governed call asks in this mode',
  protected_path: 'the path is protected',
  rule: 'a rule asks',
  risk: 'its risk is at or above approveAtRisk',
  classifier: 'the auto-mode classifier asks',
};

function renderExplanation(tool: string, outcome: ExplainedOutcome, mode: string, explanation: PolicyExplanation): string {
  const lines = [`${tool}`];
  const considered = explanation.considered;
  if (considered.argv !== undefined) lines.push(`  argv     ${terminalJson(considered.argv)}`);
  if (considered.paths !== undefined) lines.push(`  paths    ${considered.paths.join(', ')}`);
  if (considered.host !== undefined) lines.push(`  host     ${considered.host}`);
  if (considered.server !== undefined) lines.push(`  server   ${considered.server}`);
  if (explanation.guardrail !== undefined) lines.push(`  floor    ${explanation.guardrail.reason}: ${explanation.guardrail.detail}`);
  if (explanation.rules.length === 0) lines.push('  rules    none matched');
  for (const rule of explanation.rules) lines.push(`  rule   ${rule.winner ? '→' : ' '} ${rule.decision.padEnd(5)} ${rule.id}${rule.band === 'managed' ? ' [managed]' : ''}${rule.reason === undefined ? '' : ` — ${rule.reason}`}`);
  for (const note of explanation.notes) lines.push(`  note     ${note}`);
  lines.push(`  mode     ${mode}`);
  lines.push(`decision: ${outcome.decision} — ${outcome.reason}`);
  return lines.join('\n');
}

/**
 * `toolgate policy import claude|gemini <file>`: the rules a file becomes, read as a gateway reads it under
 * `policy.imports` (the same scope, the same rules), and every stricter or left-out mapping as a warning.
 */
export async function runPolicyImport(kind: string, file: string, scope: PolicyImportScope | undefined, output: CliOutput): Promise<void> {
  const progress = output.progress(`importing ${file}`);
  if (kind !== 'claude' && kind !== 'gemini') throw new CliError('usage', 'policy import takes claude or gemini.');
  const result = await refusedAsConfig(() => importPolicyFile({ from: kind, path: file, scope }, homedir()));
  progress.done(`imported ${result.rules.length} rules from ${file}`);
  output.result({ rules: result.rules, sha256: result.sha256, scope: result.scope, warnings: result.warnings }, () =>
    [
      `// ${result.rules.length} rules, read as a ${result.scope} file — add them to "policy.rules" in toolgate.config.json, or list the file under "policy.imports".`,
      `// Its allow rules load from "policy.imports" only with this content pinned: "sha256": "${result.sha256}".`,
      terminalJson(result.rules, 2),
      ...result.warnings.map((warning) => `warning: ${warning}`),
    ].join('\n'),
  );
}

/** A file the importer refuses (a schema error names the file, the rule and the field) is a configuration error. */
async function refusedAsConfig<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof ConfigurationError) throw new CliError('config', error.message);
    throw error;
  }
}

/** `toolgate policy check`: load the policy, which runs every rule's own examples; a failing rule names itself. Every loaded rule is counted, imports and remembered approvals included. */
export async function runPolicyCheck(config: ResolvedConfig, output: CliOutput): Promise<void> {
  const built = await buildPolicy(config);
  const { counts } = built;
  const rules = counts.config + counts.imported + counts.remembered;
  output.result({ ok: true, version: built.snapshot.version, rules, counts, warnings: built.warnings }, () =>
    [
      `policy ok: ${rules} rule${rules === 1 ? '' : 's'} load and pass their self-tests (${counts.config} in ${config.file ?? 'the default configuration'}, ${counts.imported} imported, ${counts.remembered} remembered)`,
      ...built.warnings.map((warning) => `warning: ${warning}`),
    ].join('\n'),
  );
}
