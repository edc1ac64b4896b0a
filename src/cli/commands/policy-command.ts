import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { parse as parseToml } from 'smol-toml';
import { ConfigurationError, importClaudeSettings, importGeminiPolicies, type PolicyExplanation } from '../../core/index.js';
import { CliError } from '../cli-error.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { buildPolicy, configRules } from '../runtime/build-policy.js';
import { openGateway } from '../runtime/open-gateway.js';

/** `toolgate policy explain <tool> <json>`: the decision, every rule that matched with its source, what was considered, the mode. */
export async function runPolicyExplain(config: ResolvedConfig, tool: string, json: string, output: CliOutput): Promise<void> {
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch {
    throw new CliError('usage', 'The arguments must be a JSON object.');
  }
  const gateway = await openGateway(config, { connectServers: false });
  try {
    const registry = gateway.registry();
    const definition = registry.get(tool);
    if (definition === undefined) throw new CliError('usage', `Unknown tool "${tool}". See toolgate tools.`);
    const plan = await registry.prepare({ callId: 'explain', name: tool, arguments: args }, gateway.context);
    let target;
    try {
      target = definition.policyTarget?.(args);
    } catch {
      target = undefined;
    }
    const info = registry.list().find((entry) => entry.key === tool || entry.name === tool);
    const explanation = gateway.policy.current.explain({ tool: info?.policyView ?? tool, args, ...(target === undefined ? {} : { target }) });
    const result = { tool, plan: { status: plan.status, reason: plan.reason, actionDigest: plan.actionDigest }, governed: info?.governed ?? false, explanation };
    output.result(result, () => renderExplanation(tool, plan.status, plan.reason, explanation));
  } finally {
    await gateway.close();
  }
}

function renderExplanation(tool: string, status: string, reason: string | undefined, explanation: PolicyExplanation): string {
  const lines = [`${tool}: ${status}${reason === undefined ? '' : ` (${reason})`}`, `policy v${explanation.version}, mode ${explanation.mode}, decision ${explanation.decision.kind}`];
  if (explanation.guardrail !== undefined) lines.push(`guardrail: ${explanation.guardrail.reason} — ${explanation.guardrail.detail}`);
  const considered = explanation.considered;
  if (considered.argv !== undefined) lines.push(`argv: ${JSON.stringify(considered.argv)}`);
  if (considered.paths !== undefined) lines.push(`paths: ${considered.paths.join(', ')}`);
  if (considered.host !== undefined) lines.push(`host: ${considered.host}`);
  if (considered.server !== undefined) lines.push(`server: ${considered.server}`);
  for (const rule of explanation.rules) lines.push(`${rule.winner ? '→' : ' '} ${rule.decision.padEnd(5)} ${rule.rule}  [${rule.source}${rule.band === 'managed' ? ', managed' : ''}]${rule.reason === undefined ? '' : ` — ${rule.reason}`}`);
  for (const note of explanation.notes) lines.push(`note: ${note}`);
  return lines.join('\n');
}

/** `toolgate policy import claude|gemini <file>`: the rules a file becomes, and every stricter or left-out mapping as a warning. */
export async function runPolicyImport(kind: string, file: string, output: CliOutput): Promise<void> {
  const progress = output.progress(`importing ${file}`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError('usage', `Cannot read ${file}.`);
  }
  let result: { rules: readonly unknown[]; warnings: readonly string[] };
  if (kind === 'claude') {
    let settings: unknown;
    try {
      settings = JSON.parse(text);
    } catch {
      throw new CliError('config', `${file} is not valid JSON.`);
    }
    result = refusedAsConfig(() => importClaudeSettings([{ scope: 'project', settings, file }], { home: homedir() }));
  } else if (kind === 'gemini') {
    let document: unknown;
    try {
      document = parseToml(text);
    } catch {
      throw new CliError('config', `${file} is not valid TOML.`);
    }
    result = refusedAsConfig(() => importGeminiPolicies([{ tier: 'workspace', document, file }]));
  } else {
    throw new CliError('usage', 'policy import takes claude or gemini.');
  }
  progress.done(`imported ${result.rules.length} rules from ${file}`);
  output.result({ rules: result.rules, warnings: result.warnings }, () =>
    [
      `// ${result.rules.length} rules — add them to "policy.rules" in toolgate.config.json, or list the file under "policy.imports".`,
      JSON.stringify(result.rules, null, 2),
      ...result.warnings.map((warning) => `warning: ${warning}`),
    ].join('\n'),
  );
}

/** A file the importer refuses (a schema error names the file, the rule and the field) is a configuration error. */
function refusedAsConfig<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (error instanceof ConfigurationError) throw new CliError('config', error.message);
    throw error;
  }
}

/** `toolgate policy check`: load the policy, which runs every rule's own examples; a failing rule names itself. */
export async function runPolicyCheck(config: ResolvedConfig, output: CliOutput): Promise<void> {
  const built = await buildPolicy(config);
  const rules = configRules(config).length;
  output.result({ ok: true, version: built.snapshot.version, rules, warnings: built.warnings }, () =>
    [`policy ok: ${rules} rule${rules === 1 ? '' : 's'} in ${config.file ?? 'the default configuration'} load and pass their self-tests`, ...built.warnings.map((warning) => `warning: ${warning}`)].join('\n'),
  );
}
