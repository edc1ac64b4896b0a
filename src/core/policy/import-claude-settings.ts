import { ConfigurationError } from '../errors/tool-errors.js';
import { claudeToolInOtherCase } from './claude-tool-names.js';
import { compileRule } from './compile-rule.js';
import { PolicyRuleError } from './policy-rule-error.js';
import type { ApprovalMode, ManagedSwitches } from './policy-snapshot-types.js';
import type { PolicyRuleString, RuleDecision, RuleSource } from './rule-types.js';
import { unprintableRuleText } from './unprintable-rule-text.js';

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
// Claude Code's `default` asks only where no rule allows: toolgate's `auto` without a classifier runs a rule-allowed
// call and asks for the rest, where toolgate's `ask` would ask for every governed call.
const MODES: Readonly<Record<string, { mode: ApprovalMode; stricter?: string }>> = {
  default: { mode: 'auto' },
  acceptEdits: { mode: 'accept-edits', stricter: 'acceptEdits maps to accept-edits: a rule-allowed call other than a workspace edit still asks' },
  plan: { mode: 'plan' },
  bypassPermissions: { mode: 'auto', stricter: 'bypassPermissions maps to auto: calls no rule allows still ask, and the guardrails and protected paths apply' },
  dontAsk: { mode: 'plan', stricter: 'dontAsk maps to plan: governed calls are refused, rule-allowed ones too' },
  auto: { mode: 'auto' },
};
const PERMISSION_KEYS = new Set(['allow', 'ask', 'deny', 'defaultMode', 'disableBypassPermissionsMode', 'disableAutoMode']);
const PATH_TOOLS = 'Read|Edit|Write|MultiEdit|NotebookEdit|Glob|Grep|LS';

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
    const refuse = (field: string, problem: string): never => {
      throw new ConfigurationError(`claude settings ${where}`, `field "${field}" ${problem}; the whole file was refused`);
    };
    const record = isRecord(settings) ? settings : refuse('(document)', 'is not an object');
    const permissions = record.permissions;
    if (permissions === undefined) continue;
    if (!isRecord(permissions)) return refuse('permissions', 'is not an object');
    // The whole file is checked before any rule is taken, so a broken list never half-loads.
    for (const decision of ['deny', 'ask', 'allow'] as const) {
      const list = permissions[decision];
      if (list === undefined) continue;
      if (!Array.isArray(list)) refuse(`permissions.${decision}`, 'is not a list');
      for (const [index, text] of (list as unknown[]).entries()) {
        if (typeof text !== 'string') refuse(`permissions.${decision}[${index}]`, 'is not a string');
        const unprintable = unprintableRuleText((text as string).trim());
        if (unprintable !== undefined) refuse(`permissions.${decision}[${index}]`, unprintable);
      }
    }
    for (const key of Object.keys(permissions)) {
      if (!PERMISSION_KEYS.has(key)) warnings.push(`${where}: permissions.${key.slice(0, 40)} has no toolgate equivalent and was dropped${key === 'additionalDirectories' ? ' (toolgate reaches only the workspace roots it is given: stricter)' : ''}`);
    }
    const context: RuleContext = { scope, where, warnings, home: options.home, file };
    for (const decision of ['deny', 'ask', 'allow'] as const satisfies readonly RuleDecision[]) {
      for (const [index, text] of ((permissions[decision] ?? []) as string[]).entries()) {
        const rule = importRule(text, decision, `${scope}.${decision}[${index}]`, context);
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
        if (mapped.stricter !== undefined) warnings.push(`${where}: ${mapped.stricter}`);
      }
    }
    if (scope === 'managed') {
      if (record.allowManagedPermissionRulesOnly === true || record.allowManagedRulesOnly === true) managed.allowManagedRulesOnly = true;
      if (record.disableAutoMode === true || permissions.disableBypassPermissionsMode === 'disable' || permissions.disableAutoMode === 'disable') managed.disableAutoMode = true;
    }
  }
  return Object.freeze({ rules: Object.freeze(rules), mode, managed: Object.freeze(managed), warnings: Object.freeze(warnings) });
}

interface RuleContext {
  readonly scope: ClaudeSettingsScope;
  readonly where: string;
  readonly warnings: string[];
  readonly home: string | undefined;
  readonly file: string | undefined;
}

function importRule(text: string, decision: RuleDecision, id: string, context: RuleContext): PolicyRuleString | undefined {
  const { where, warnings } = context;
  const shown = JSON.stringify(text.slice(0, 120));
  const warn = (problem: string): void => {
    warnings.push(`${where}: rule ${shown} ${problem}`);
  };
  let rule = text.trim();
  if (rule === '*' && decision === 'allow') {
    warn('was ignored, as Claude Code ignores a bare "*" allow');
    return undefined;
  }
  // Claude Code checks file paths against Read and Edit rules only: it takes a path rule of these tools and never
  // consults it, so such an allow approves nothing there. Their deny and ask, and a bare name, keep their meaning.
  if (decision === 'allow' && /^(?:Write|MultiEdit|NotebookEdit|Glob)\(/.test(rule)) {
    warn('is a path allow Claude Code never consults (only Read and Edit path rules are): left out');
    return undefined;
  }
  // `mcp__server__*` is every tool of one server, `mcp__*` every MCP tool.
  if (/^mcp__[A-Za-z0-9_-]+__\*$/.test(rule)) rule = rule.slice(0, -3);
  else if (rule === 'mcp__*') rule = 'mcp_*';
  const settingsRelative = new RegExp(`^(${PATH_TOOLS})\\((/[^/].*)\\)$`, 's').exec(rule);
  if (settingsRelative !== null) rule = `${settingsRelative[1] ?? ''}(${settingsRoot(context, warn)}${settingsRelative[2] ?? ''})`;
  const homeSpecifier = new RegExp(`^(${PATH_TOOLS})\\(~/(.*)\\)$`, 's').exec(rule);
  // Without a home directory `~/` stays as written: `createPolicy`'s `home` names it (and a deny or ask there also
  // matches the literal spelling), as a gateway's imports are read.
  if (homeSpecifier !== null && context.home !== undefined) rule = `${homeSpecifier[1] ?? ''}(/${context.home.replace(/\/+$/, '')}/${homeSpecifier[2] ?? ''})`;
  // Claude Code reads a deny or ask of a relative folder pattern at any depth: `Read(secrets/**)` also refuses
  // `vendor/pkg/secrets/key`. An allow keeps the place it names.
  const relativeFolder = decision === 'allow' ? null : new RegExp(`^(${PATH_TOOLS})\\((?!\\.{0,2}/|~/|\\*\\*)([^/].*/.+)\\)$`, 's').exec(rule.replace(/\/+\)$/, ')'));
  if (relativeFolder !== null) rule = `${relativeFolder[1] ?? ''}(**/${relativeFolder[2] ?? ''})`;
  const wildDomain = /^WebFetch\(domain:(.*)\)$/s.exec(rule);
  if (wildDomain !== null && (wildDomain[1] ?? '').slice((wildDomain[1] ?? '').startsWith('*.') ? 2 : 0).includes('*')) {
    if (decision === 'allow') {
      warn('allows a domain wildcard toolgate cannot name: left out (stricter)');
      return undefined;
    }
    warn(`${decision === 'deny' ? 'denies' : 'asks for'} a domain wildcard toolgate cannot name: it covers every WebFetch (stricter)`);
    rule = 'WebFetch';
  }
  // A deny or ask whose tool is spelt in another case is read as that tool: it can only refuse or ask more.
  const named = /^([A-Za-z]+)(?=\(|$)/.exec(rule)?.[1];
  const canonical = decision === 'allow' || named === undefined ? undefined : claudeToolInOtherCase(named);
  if (canonical !== undefined) {
    warn(`spells ${canonical} in another case: read as ${canonical} (stricter)`);
    rule = `${canonical}${rule.slice(canonical.length)}`;
  }
  const imported = (form: string): PolicyRuleString => ({ rule: form, decision, source: SOURCE[context.scope], band: 'claude-code', id: `claude:${id}` });
  try {
    compileRule(imported(rule), 0);
    return imported(rule);
  } catch (error) {
    if (!(error instanceof PolicyRuleError)) throw error;
    const tool = /^([A-Za-z0-9_*-]+)\(/.exec(rule)?.[1];
    // A deny or ask whose tool is a glob (`Note*(x/**)`) has tools toolgate knows whatever its specifier means.
    if (error.problem === 'unknown_tool' && (decision === 'allow' || tool?.includes('*') !== true)) {
      warn('names a tool toolgate does not have: left out');
      return undefined;
    }
    if (decision === 'allow') {
      warn('has a specifier toolgate cannot read: left out (stricter)');
      return undefined;
    }
    // Left out, a deny or ask would refuse or ask nothing while the file reads as if it did.
    if (tool === undefined) throw new ConfigurationError(`claude settings ${where}`, `rule ${shown} is a ${decision} whose tool toolgate cannot tell; the whole file was refused`);
    // Claude Code has no priorities, so a deny or ask that covers the whole tool only refuses or asks more.
    warn(`has a specifier toolgate cannot read: the ${decision} covers every ${tool} call (stricter)`);
    return imported(tool);
  }
}

/**
 * Where `/path` is anchored: the root its settings file belongs to. The
 * user's settings live in `~/.claude/`, the managed file in its own
 * directory, project and local settings in the workspace.
 */
function settingsRoot(context: RuleContext, warn: (problem: string) => void): string {
  if (context.scope === 'user') return '~/.claude';
  if (context.scope === 'managed') {
    const directory = context.file?.startsWith('/') === true ? context.file.slice(0, context.file.lastIndexOf('/')) : undefined;
    if (directory !== undefined) return `/${directory}`;
    warn('is relative to a managed settings file whose location was not given: it is anchored at the workspace root');
  }
  return '.';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
