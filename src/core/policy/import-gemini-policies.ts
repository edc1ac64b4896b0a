import { ConfigurationError } from '../errors/tool-errors.js';
import { compileRule, isList } from './compile-rule.js';
import { geminiArgsPatterns, isSafeRegExp, runsInLinearTime } from './gemini-args-patterns.js';
import { isRecord } from './import-claude-settings.js';
import { PolicyRuleError } from './policy-rule-error.js';
import type { ApprovalMode } from './policy-snapshot-types.js';
import type { PolicyRuleObject, RuleDecision, RuleMatch, RuleSource } from './rule-types.js';
import { unprintableRuleText } from './unprintable-rule-text.js';

/** Gemini CLI policy tiers, lowest first. */
export type GeminiPolicyTier = 'default' | 'extension' | 'workspace' | 'user' | 'admin';
/** Gemini CLI approval modes, as a rule's `modes` names them. */
export type GeminiApprovalMode = 'default' | 'autoEdit' | 'yolo' | 'plan';

export interface GeminiPolicyFile {
  readonly tier: GeminiPolicyTier;
  /** The parsed TOML document (`[[rule]]` tables). */
  readonly document: unknown;
  readonly file?: string;
}

export interface ImportGeminiOptions {
  /** The approval mode the rules are imported for (a rule's `modes` is read against it). Default `default`. */
  readonly mode?: GeminiApprovalMode;
  /** Whether the session is interactive (a rule's `interactive` is read against it). Default true. */
  readonly interactive?: boolean;
  /** The subagent the rules are imported for (a rule's `subagent` is read against it). Default: the main agent. */
  readonly subagent?: string;
  /**
   * The rules govern no one session (a gateway whose mode a person switches,
   * serving any agent): a deny or ask with a `modes`, `interactive` or
   * `subagent` condition applies in every session, an allow with one is left
   * out. `mode`, `interactive` and `subagent` are then not read.
   */
  readonly anySession?: boolean;
}

export interface ImportedGeminiPolicy {
  readonly rules: readonly PolicyRuleObject[];
  /** Every mapping that is stricter than Gemini CLI, or left out, naming the rule. */
  readonly warnings: readonly string[];
  /** The toolgate mode for the imported Gemini CLI mode. */
  readonly mode: ApprovalMode;
}

// Gemini CLI's tier numbers: a rule's priority is tier + priority / 1000, so any rule of a higher tier wins.
const TIER: Record<GeminiPolicyTier, number> = { default: 1, extension: 2, workspace: 3, user: 4, admin: 5 };
const TIER_SOURCE: Record<GeminiPolicyTier, RuleSource> = { default: 'user', extension: 'user', workspace: 'project', user: 'user', admin: 'managed' };
const DECISIONS: Readonly<Record<string, RuleDecision>> = { allow: 'allow', deny: 'deny', ask_user: 'ask' };
const MODES: Readonly<Record<GeminiApprovalMode, ApprovalMode>> = { default: 'ask', autoEdit: 'accept-edits', yolo: 'auto', plan: 'plan' };
const SHELL = 'run_command';
/** Gemini CLI built-in tool names (current and legacy aliases) → toolgate names. */
const GEMINI_TOOLS: Readonly<Record<string, readonly string[]>> = {
  run_shell_command: [SHELL],
  ShellTool: [SHELL],
  read_file: ['read_file'],
  read_many_files: ['read_file'],
  write_file: ['write_file'],
  replace: ['edit_file'],
  list_directory: ['list_directory'],
  glob: ['list_directory'],
  grep_search: ['read_file', 'list_directory'],
  search_file_content: ['read_file', 'list_directory'],
  web_fetch: ['http_request'],
  google_web_search: ['web_search'],
};
const RULE_KEYS = new Set([
  'toolName', 'subagent', 'mcpName', 'argsPattern', 'commandPrefix', 'commandRegex', 'decision', 'priority', 'modes', 'interactive',
  'toolAnnotations', 'allowRedirection', 'allow_redirection', 'denyMessage', 'deny_message',
]);
const MODE_NAMES = new Set<string>(['default', 'autoEdit', 'yolo', 'plan']);

/** One `[[rule]]` table after its schema check. */
interface GeminiRule {
  readonly toolNames: readonly string[];
  readonly decision: RuleDecision;
  readonly priority: number;
  readonly subagent?: string;
  readonly mcpName?: string;
  readonly argsPattern?: string;
  readonly commandPrefix?: readonly string[];
  readonly commandRegex?: string;
  readonly modes?: readonly string[];
  readonly interactive?: boolean;
  readonly toolAnnotations?: Readonly<Record<string, unknown>>;
  readonly denyMessage?: string;
}

/** A rule ready for toolgate, and whether it had to be widened (a condition toolgate cannot read). */
interface Mapped {
  readonly rule: PolicyRuleObject;
  readonly widened: boolean;
}

/**
 * Gemini CLI TOML policies with Gemini CLI's own semantics: the file schema
 * (a file with any schema error is refused whole, naming the file, the rule
 * and the field), tiers and priorities (`tier × 1000 + priority`), `toolName`
 * with its legacy aliases and MCP forms, `mcpName`, `commandPrefix`,
 * `commandRegex` and `argsPattern` built and matched exactly as Gemini CLI
 * builds them, `modes`, `interactive` and `subagent` read against the
 * imported session. What toolgate cannot read is made stricter or left out,
 * never looser, with a warning naming the rule.
 */
export function importGeminiPolicies(files: readonly GeminiPolicyFile[], options: ImportGeminiOptions = {}): ImportedGeminiPolicy {
  const mode = options.mode ?? 'default';
  if (!MODE_NAMES.has(mode)) throw new ConfigurationError('gemini.mode', 'must be default, autoEdit, yolo or plan');
  const mapped: Mapped[] = [];
  const warnings: string[] = [];
  for (const { tier, document, file } of files) {
    const where = file ?? `${String(tier)} policy`;
    if (!Object.hasOwn(TIER, tier)) throw new ConfigurationError(`gemini policy ${where}`, `has an unknown tier "${String(tier).slice(0, 40)}"`);
    const tables = checkFile(document, where);
    const name = file === undefined ? '' : `${file.split(/[\\/]/).pop() ?? ''}:`;
    for (const [index, table] of tables.entries()) {
      const id = `gemini:${tier}:${name}rule[${index}]`;
      const warn = (text: string): void => {
        warnings.push(`${where}: rule #${index + 1} ${text}`);
      };
      mapped.push(...importRule(table, tier, id, { mode, interactive: options.interactive ?? true, subagent: options.subagent, any: options.anySession === true }, warn));
    }
  }
  const rules = guardWidenedAsks(mapped, warnings);
  warnTies(rules, warnings);
  return Object.freeze({ rules: Object.freeze(rules), warnings: Object.freeze(warnings), mode: MODES[mode] });
}

/** The file schema, as Gemini CLI's loader checks it: any problem refuses the whole file. */
function checkFile(document: unknown, where: string): GeminiRule[] {
  const refuse = (rule: number | undefined, field: string, problem: string): never => {
    throw new ConfigurationError(`gemini policy ${where}`, `${rule === undefined ? '' : `rule #${rule + 1} `}field "${field}" ${problem}; the whole file was refused`);
  };
  if (!isRecord(document)) return refuse(undefined, '(document)', 'is not a table');
  if (document.safety_checker !== undefined) refuse(undefined, 'safety_checker', 'names safety checkers, which toolgate cannot run');
  const tables = document.rule;
  if (tables === undefined) return [];
  if (!isList(tables)) return refuse(undefined, 'rule', 'must be an array of tables');
  return tables.map((table, index) => checkRule(table, (field, problem) => refuse(index, field, problem)));
}

function checkRule(table: unknown, refuse: (field: string, problem: string) => never): GeminiRule {
  if (!isRecord(table)) return refuse('(rule)', 'is not a table');
  const strings = (field: string, value: unknown, required: boolean): readonly string[] | undefined => {
    if (value === undefined) return required ? refuse(field, 'is required') : undefined;
    if (typeof value === 'string') return [value];
    if (isList(value) && value.every((entry) => typeof entry === 'string')) return value;
    return refuse(field, 'must be a string or an array of strings');
  };
  const string = (field: string): string | undefined => {
    const value = table[field];
    if (value !== undefined && typeof value !== 'string') refuse(field, 'must be a string');
    return value;
  };
  const boolean = (field: string): boolean | undefined => {
    const value = table[field];
    if (value !== undefined && typeof value !== 'boolean') refuse(field, 'must be true or false');
    return value;
  };
  const toolNames = strings('toolName', table.toolName, true) as readonly string[];
  if (toolNames.some((name) => name === '')) refuse('toolName', 'must not be empty (use "*" for every tool)');
  const rawDecision = table.decision;
  if (rawDecision === undefined) refuse('decision', 'is required');
  const decision = (typeof rawDecision === 'string' && Object.hasOwn(DECISIONS, rawDecision) ? DECISIONS[rawDecision] : undefined) ?? refuse('decision', 'must be allow, deny or ask_user');
  const priority = table.priority;
  if (priority === undefined) refuse('priority', 'is required');
  if (typeof priority !== 'number' || !Number.isInteger(priority)) refuse('priority', 'must be an integer');
  if ((priority) < 0 || (priority) > 999) refuse('priority', 'must be within 0–999');
  const modes = table.modes;
  if (modes !== undefined && !(isList(modes) && modes.every((entry) => typeof entry === 'string' && MODE_NAMES.has(entry)))) refuse('modes', 'must list default, autoEdit, yolo or plan');
  const annotations = table.toolAnnotations;
  if (annotations !== undefined && !isRecord(annotations)) refuse('toolAnnotations', 'must be a table');
  const subagent = string('subagent');
  const mcpName = string('mcpName');
  if (subagent === '') refuse('subagent', 'must not be empty');
  if (mcpName === '') refuse('mcpName', 'must not be empty');
  const argsPattern = string('argsPattern');
  const commandPrefix = strings('commandPrefix', table.commandPrefix, false);
  const commandRegex = string('commandRegex');
  if (commandPrefix !== undefined || commandRegex !== undefined) {
    if (table.toolName !== 'run_shell_command') refuse('toolName', 'must be exactly "run_shell_command" with commandPrefix or commandRegex');
    if (argsPattern !== undefined) refuse('argsPattern', 'cannot be combined with commandPrefix or commandRegex');
    if (commandPrefix !== undefined && commandRegex !== undefined) refuse('commandRegex', 'cannot be combined with commandPrefix');
  }
  const interactive = boolean('interactive');
  boolean('allowRedirection');
  boolean('allow_redirection');
  const denyMessage = string('denyMessage') ?? string('deny_message');
  for (const key of Object.keys(table)) if (!RULE_KEYS.has(key)) refuse(key, 'is not a rule field');
  refuseUnprintable(table, refuse);
  return {
    toolNames,
    decision,
    priority: priority,
    ...(subagent === undefined ? {} : { subagent }),
    ...(mcpName === undefined ? {} : { mcpName }),
    ...(argsPattern === undefined ? {} : { argsPattern }),
    ...(commandPrefix === undefined ? {} : { commandPrefix }),
    ...(commandRegex === undefined ? {} : { commandRegex }),
    ...(modes === undefined ? {} : { modes: modes as string[] }),
    ...(interactive === undefined ? {} : { interactive }),
    ...(annotations === undefined ? {} : { toolAnnotations: annotations }),
    ...(denyMessage === undefined ? {} : { denyMessage }),
  };
}

/** A rule whose text draws differently from what it matches is refused (see `unprintableRuleText`). */
function refuseUnprintable(table: Record<string, unknown>, refuse: (field: string, problem: string) => never): void {
  for (const [key, value] of Object.entries(table)) {
    for (const text of typeof value === 'string' ? [value] : isList(value) ? value : []) {
      const unprintable = typeof text === 'string' ? unprintableRuleText(text) : undefined;
      if (unprintable !== undefined) refuse(key, unprintable);
    }
  }
}

interface Session {
  readonly mode: GeminiApprovalMode;
  readonly interactive: boolean;
  readonly subagent: string | undefined;
  readonly any: boolean;
}

/** The rule's session condition that the imported session does not meet (with `any`, every one it has). */
function sessionCondition(rule: GeminiRule, session: Session): { readonly text: string; readonly unmet: string } | undefined {
  if (rule.modes !== undefined && rule.modes.length > 0 && (session.any || !rule.modes.includes(session.mode))) {
    return { text: `applies only in modes ${rule.modes.join(', ')}`, unmet: `, not in ${session.mode}: left out (import again for another mode)` };
  }
  if (rule.interactive !== undefined && (session.any || rule.interactive !== session.interactive)) {
    return { text: `applies only to ${rule.interactive ? 'interactive' : 'non-interactive'} sessions`, unmet: ': left out' };
  }
  if (rule.subagent !== undefined && (session.any || rule.subagent !== session.subagent)) {
    return { text: `applies only to the subagent "${rule.subagent.slice(0, 60)}"`, unmet: ': left out (import with that subagent for it)' };
  }
  return undefined;
}

function importRule(rule: GeminiRule, tier: GeminiPolicyTier, id: string, session: Session, warn: (text: string) => void): Mapped[] {
  const { decision } = rule;
  // The session conditions are known when importing: a rule that does not apply in it is not imported.
  const condition = sessionCondition(rule, session);
  if (condition !== undefined && (!session.any || decision === 'allow')) {
    warn(session.any ? `${condition.text}, and the session a gateway governs is not fixed: left out (stricter)` : `${condition.text}${condition.unmet}`);
    return [];
  }
  if (condition !== undefined) warn(`${condition.text}, and the session a gateway governs is not fixed: the ${decision} applies in every session (stricter)`);
  let widened = false;
  // A condition toolgate cannot read: an allow is left out, a deny or ask applies without it.
  const unreadable = (what: string): boolean => {
    if (decision === 'allow') {
      warn(`is an allow conditioned on ${what}, which toolgate cannot read: left out (stricter)`);
      return true;
    }
    warn(`is a ${decision} conditioned on ${what}, which toolgate cannot read: it applies without that condition (stricter)`);
    widened = true;
    return false;
  };
  if (rule.toolAnnotations !== undefined && unreadable('toolAnnotations')) return [];
  const tools = toolgateTools(rule, decision, warn);
  if (tools.length === 0) return [];
  const match = ruleMatch(rule, tools, unreadable, warn);
  if (match === null) return [];
  if (match === undefined && (rule.argsPattern !== undefined || rule.commandPrefix !== undefined || rule.commandRegex !== undefined)) widened = true;
  const out: Mapped[] = [];
  const matches = match === undefined ? [undefined] : match;
  for (const [toolIndex, tool] of tools.entries()) {
    for (const [matchIndex, one] of matches.entries()) {
      const suffix = tools.length * matches.length > 1 ? `.${toolIndex}.${matchIndex}` : '';
      const mapped: PolicyRuleObject = {
        id: `${id}${suffix}`,
        tool: tool.name,
        decision,
        source: TIER_SOURCE[tier],
        priority: TIER[tier] * 1000 + rule.priority,
        ...(one === undefined ? {} : { match: one }),
        ...(rule.denyMessage === undefined ? {} : { reason: rule.denyMessage.slice(0, 200) }),
      };
      try {
        compileRule(mapped, 0);
      } catch (error) {
        if (!(error instanceof PolicyRuleError)) throw error;
        throw new ConfigurationError(`gemini policy rule ${id}`, `cannot be mapped (${error.problem})`);
      }
      out.push({ rule: mapped, widened: widened || tool.widened });
    }
  }
  return out;
}

/** The toolgate tool names a rule reaches, as Gemini CLI's `toolName`, aliases and `mcpName` reach them. */
function toolgateTools(rule: GeminiRule, decision: RuleDecision, warn: (text: string) => void): { name: string; widened: boolean }[] {
  const out: { name: string; widened: boolean }[] = [];
  const add = (name: string, widened = false): void => {
    if (!out.some((entry) => entry.name === name)) out.push({ name, widened });
  };
  for (const name of rule.toolNames) {
    if (rule.mcpName !== undefined) {
      const server = rule.mcpName;
      if (server === '*' && name === '*') add('mcp_*');
      else if (server === '*') {
        // Any server's tool of that name: toolgate names tools server first, so only every MCP tool covers it.
        if (decision === 'allow') warn(`allows "${name.slice(0, 60)}" on any MCP server, which toolgate cannot name: left out (stricter)`);
        else {
          warn(`${decision === 'deny' ? 'denies' : 'asks for'} "${name.slice(0, 60)}" on any MCP server: it covers every MCP tool (stricter)`);
          add('mcp_*', true);
        }
      } else add(name === '*' ? `mcp__${server}` : `mcp__${server}__${name}`);
      continue;
    }
    if (name === '*') add('*');
    else if (Object.hasOwn(GEMINI_TOOLS, name)) for (const each of GEMINI_TOOLS[name] ?? []) add(each);
    else if (name === 'mcp_*') add('mcp_*');
    // A server wildcard: Gemini CLI takes the server as everything between `mcp_` and the final `_*`, underscores
    // and all (`mcp_ops_prod_*` is every tool of `ops_prod`); one that holds a `*` it compares literally.
    else if (/^mcp_[^*]+_\*$/.test(name)) add(`mcp__${name.slice(4, -2)}`);
    else if (/^mcp_[^_]+_.+$/.test(name) && !name.includes('*')) {
      // Gemini CLI reads `mcp_{server}_{tool}` with the server ending at the first `_`.
      const [, server, tool] = /^mcp_([^_]+)_(.+)$/.exec(name) as RegExpExecArray;
      add(`mcp__${server as string}__${tool as string}`);
    } else if (name.includes('__')) warn(`names "${name.slice(0, 60)}" with the "__" form, which Gemini CLI no longer matches against any call: left out`);
    else if (name.includes('*')) warn(`names "${name.slice(0, 60)}", a wildcard Gemini CLI matches only literally: left out`);
    else warn(`names the tool "${name.slice(0, 60)}", which toolgate does not have: left out`);
  }
  return out;
}

/**
 * The argument condition (`geminiArgsPatterns`), read against toolgate's
 * shell call. undefined: no condition; null: leave the rule out.
 */
function ruleMatch(rule: GeminiRule, tools: readonly { name: string }[], unreadable: (what: string) => boolean, warn: (text: string) => void): RuleMatch[] | undefined | null {
  const patterns = geminiArgsPatterns(rule);
  if (patterns === undefined) return undefined;
  for (const pattern of patterns) {
    if (!isSafeRegExp(pattern)) throw new ConfigurationError('gemini policy', `rule pattern "${pattern.slice(0, 60)}" is not a valid, safe regular expression (Gemini CLI refuses it too)`);
  }
  const shellOnly = tools.every((tool) => tool.name === SHELL);
  // toolgate's shell call has a command and a working directory; a pattern on another of Gemini CLI's shell
  // arguments, or on a tool whose arguments toolgate names differently, cannot be read.
  if (!shellOnly || (rule.argsPattern !== undefined && /is_background|description|additional_permissions/.test(rule.argsPattern))) {
    return unreadable(shellOnly ? 'a shell argument toolgate does not have' : 'argsPattern over arguments toolgate names differently') ? null : undefined;
  }
  if (!patterns.every(runsInLinearTime)) return unreadable('a pattern toolgate cannot match in time proportional to the command (a back-reference, a lookbehind, or one too large)') ? null : undefined;
  if (rule.commandRegex?.startsWith('^') === true) warn('has a commandRegex starting with ^, which Gemini CLI anchors at the start of the arguments, so it matches no command');
  return patterns.map((pattern) => ({ shellArgsPattern: pattern }));
}

/**
 * A widened ask could outrank a lower deny that Gemini CLI would have reached
 * (the ask's condition false there): such an ask becomes a deny.
 */
function guardWidenedAsks(mapped: readonly Mapped[], warnings: string[]): PolicyRuleObject[] {
  return mapped.map(({ rule, widened }) => {
    if (!widened || rule.decision !== 'ask') return rule;
    const shadowed = mapped.some(({ rule: other }) => other.decision === 'deny' && (other.priority ?? 0) < (rule.priority ?? 0) && toolsOverlap(rule.tool, other.tool));
    if (!shadowed) return rule;
    warnings.push(`rule ${rule.id ?? ''} is a widened ask above a deny it could hide: it denies instead (stricter)`);
    return { ...rule, decision: 'deny' };
  });
}

function toolsOverlap(left: string, right: string): boolean {
  return left === '*' || right === '*' || left === right || (left.startsWith('mcp') && right.startsWith('mcp'));
}

/** Gemini CLI takes the first loaded of rules with equal priority; toolgate the strictest. Said where it can differ. */
function warnTies(rules: readonly PolicyRuleObject[], warnings: string[]): void {
  const seen = new Set<string>();
  for (const rule of rules) {
    for (const other of rules) {
      if (other === rule || other.priority !== rule.priority || other.decision === rule.decision || !toolsOverlap(rule.tool, other.tool)) continue;
      const key = String(rule.priority);
      if (seen.has(key)) continue;
      seen.add(key);
      warnings.push(`rules at priority ${key} decide differently: on a tie Gemini CLI takes the first loaded, toolgate the strictest (deny, then ask)`);
    }
  }
}
