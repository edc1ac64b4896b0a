import { compileRule } from './compile-rule.js';
import { PolicyRuleError } from './policy-rule-error.js';
import type { ApprovalMode, ManagedSwitches } from './policy-snapshot-types.js';
import type { PolicyRuleString, RuleDecision, RuleSource } from './rule-types.js';

/** Claude Code settings scopes, highest precedence first: managed, local, project, user. */
export type ClaudeSettingsScope = 'managed' | 'local' | 'project' | 'user';

export interface ClaudeSettingsFile {
  readonly scope: ClaudeSettingsScope;
  /** The parsed `settings.json` content. */
  readonly settings: unknown;
  /** For warnings only. */
  readonly file?: string;
}

export interface ImportedPolicy {
  readonly rules: readonly PolicyRuleString[];
  readonly mode: ApprovalMode | undefined;
  readonly managed: ManagedSwitches;
  /** Every lossy or skipped mapping, naming the rule. */
  readonly warnings: readonly string[];
}

const SOURCE: Record<ClaudeSettingsScope, RuleSource> = { managed: 'managed', local: 'project', project: 'project', user: 'user' };
const PRECEDENCE: readonly ClaudeSettingsScope[] = ['managed', 'local', 'project', 'user'];
const MODES: Readonly<Record<string, { mode: ApprovalMode; lossy?: string }>> = {
  default: { mode: 'ask' },
  acceptEdits: { mode: 'accept-edits' },
  plan: { mode: 'plan' },
  bypassPermissions: { mode: 'auto', lossy: 'bypassPermissions maps to auto: the guardrails and protected paths still apply' },
  dontAsk: { mode: 'auto', lossy: 'dontAsk maps to auto: calls no rule allows still prompt instead of being refused' },
  auto: { mode: 'auto' },
};

/**
 * Claude Code `permissions.allow / ask / deny` and `defaultMode` from every
 * scope. All imported rules share one band (Claude Code's own semantics: a
 * deny in any scope beats an allow in any), keeping their scope as source.
 * A rule with no toolgate equivalent is skipped with a warning naming it.
 */
export function importClaudeSettings(files: readonly ClaudeSettingsFile[], options: { readonly home?: string } = {}): ImportedPolicy {
  const rules: PolicyRuleString[] = [];
  const warnings: string[] = [];
  let mode: ApprovalMode | undefined;
  let modeScope = PRECEDENCE.length;
  const managed: { allowManagedRulesOnly?: boolean; disableAutoMode?: boolean } = {};
  for (const { scope, settings, file } of files) {
    const where = file ?? `${scope} settings`;
    if (!PRECEDENCE.includes(scope)) {
      warnings.push(`${where}: unknown scope "${String(scope)}" skipped`);
      continue;
    }
    const permissions = isRecord(settings) && isRecord(settings.permissions) ? settings.permissions : undefined;
    if (permissions === undefined) continue;
    for (const decision of ['deny', 'ask', 'allow'] as const satisfies readonly RuleDecision[]) {
      const list = permissions[decision];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        warnings.push(`${where}: permissions.${decision} is not a list; skipped`);
        continue;
      }
      for (const [index, text] of list.entries()) {
        const rule = importRule(text, decision, scope, `${scope}.${decision}[${index}]`, where, warnings, options.home);
        if (rule !== undefined) rules.push(rule);
      }
    }
    const defaultMode = permissions.defaultMode;
    if (typeof defaultMode === 'string') {
      const mapped = Object.hasOwn(MODES, defaultMode) ? MODES[defaultMode] : undefined;
      if (mapped === undefined) warnings.push(`${where}: defaultMode "${defaultMode.slice(0, 40)}" is unknown; ignored`);
      else if (PRECEDENCE.indexOf(scope) < modeScope) {
        mode = mapped.mode;
        modeScope = PRECEDENCE.indexOf(scope);
        if (mapped.lossy !== undefined) warnings.push(`${where}: ${mapped.lossy}`);
      }
    }
    if (scope === 'managed' && isRecord(settings)) {
      if (settings.allowManagedPermissionRulesOnly === true || settings.allowManagedRulesOnly === true) managed.allowManagedRulesOnly = true;
      if (settings.disableAutoMode === true || permissions.disableBypassPermissionsMode === 'disable' || permissions.disableAutoMode === 'disable') managed.disableAutoMode = true;
    }
  }
  return Object.freeze({ rules: Object.freeze(rules), mode, managed: Object.freeze(managed), warnings: Object.freeze(warnings) });
}

function importRule(text: unknown, decision: RuleDecision, scope: ClaudeSettingsScope, id: string, where: string, warnings: string[], home: string | undefined): PolicyRuleString | undefined {
  if (typeof text !== 'string') {
    warnings.push(`${where}: ${id} is not a string; skipped`);
    return undefined;
  }
  const shown = JSON.stringify(text.slice(0, 120));
  let rule = text.trim();
  const pathSpecifier = /^(Read|Edit|Write|MultiEdit|NotebookEdit|Glob|Grep|LS)\((\/[^/].*)\)$/s.exec(rule);
  if (pathSpecifier !== null) {
    // Claude Code reads `/x` relative to the settings file; toolgate anchors it at the workspace root.
    warnings.push(`${where}: rule ${shown} uses a settings-relative path; it is anchored at the workspace root`);
    rule = `${pathSpecifier[1] ?? ''}(.${pathSpecifier[2] ?? ''})`;
  }
  const homeSpecifier = /^(Read|Edit|Write|MultiEdit|NotebookEdit|Glob|Grep|LS)\(~\/(.*)\)$/s.exec(rule);
  if (homeSpecifier !== null) {
    if (home === undefined) warnings.push(`${where}: rule ${shown} names a home path and no home directory was given; it matches only paths written with ~/`);
    else rule = `${homeSpecifier[1] ?? ''}(/${home.replace(/\/+$/, '')}/${homeSpecifier[2] ?? ''})`;
  }
  if (/^Bash\(.*\*.+\)$/s.test(rule) && !rule.endsWith(':*)')) {
    warnings.push(`${where}: rule ${shown} has a wildcard inside the command; it matches within one argv element only`);
  }
  const imported: PolicyRuleString = { rule, decision, source: SOURCE[scope], band: 'claude-code', id: `claude:${id}` };
  try {
    compileRule(imported, 0);
  } catch (error) {
    if (!(error instanceof PolicyRuleError)) throw error;
    warnings.push(`${where}: rule ${shown} was skipped: ${error.problem === 'unknown_tool' ? 'it names a tool with no toolgate equivalent' : 'its specifier cannot be mapped'}`);
    return undefined;
  }
  return imported;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
