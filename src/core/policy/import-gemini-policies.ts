import { compileRule } from './compile-rule.js';
import { isRecord } from './import-claude-settings.js';
import { PolicyRuleError } from './policy-rule-error.js';
import type { PolicyRuleObject, RuleDecision, RuleMatch, RuleSource } from './rule-types.js';
import { splitCommand } from './split-command.js';

/** Gemini CLI policy tiers, lowest first. */
export type GeminiPolicyTier = 'default' | 'workspace' | 'user' | 'admin';

export interface GeminiPolicyFile {
  readonly tier: GeminiPolicyTier;
  /** The parsed TOML document (`[[rule]]` tables). */
  readonly document: unknown;
  readonly file?: string;
}

export interface ImportedGeminiPolicy {
  readonly rules: readonly PolicyRuleObject[];
  /** Every lossy or skipped mapping, naming the rule. */
  readonly warnings: readonly string[];
}

const TIER_BASE: Record<GeminiPolicyTier, number> = { default: 1, workspace: 2, user: 3, admin: 4 };
const TIER_SOURCE: Record<GeminiPolicyTier, RuleSource> = { default: 'user', workspace: 'project', user: 'user', admin: 'managed' };
const DECISIONS: Readonly<Record<string, RuleDecision>> = { allow: 'allow', deny: 'deny', ask_user: 'ask' };
/** Gemini CLI built-in tool names → toolgate names (the same families as the Claude Code map). */
const GEMINI_TOOLS: Readonly<Record<string, readonly string[]>> = {
  run_shell_command: ['run_command'],
  read_file: ['read_file'],
  read_many_files: ['read_file'],
  write_file: ['write_file'],
  replace: ['edit_file'],
  list_directory: ['list_directory'],
  glob: ['list_directory'],
  search_file_content: ['read_file', 'list_directory'],
  web_fetch: ['http_request'],
  google_web_search: ['web_search'],
};
/**
 * Gemini CLI TOML policies: tiers and priorities become one priority
 * (`tier × 1000 + priority`, admin in the managed band), `commandPrefix`
 * becomes an argv prefix, `argsPattern` / `commandRegex` a pattern over the
 * canonical JSON arguments. Lossy mappings are reported, naming the rule;
 * an `allow` restricted to some modes is dropped (it would widen).
 */
export function importGeminiPolicies(files: readonly GeminiPolicyFile[]): ImportedGeminiPolicy {
  const rules: PolicyRuleObject[] = [];
  const warnings: string[] = [];
  for (const { tier, document, file } of files) {
    const where = file ?? `${tier} policy`;
    if (!Object.hasOwn(TIER_BASE, tier)) {
      warnings.push(`${where}: unknown tier "${String(tier)}" skipped`);
      continue;
    }
    const tables = isRecord(document) ? document.rule : undefined;
    if (tables === undefined) continue;
    if (!Array.isArray(tables)) {
      warnings.push(`${where}: "rule" must be an array of tables; skipped`);
      continue;
    }
    for (const [index, table] of tables.entries()) {
      const id = `gemini:${tier}:${file === undefined ? '' : `${file.split(/[\\/]/).pop() ?? ''}:`}rule[${index}]`;
      for (const rule of importRule(table, tier, id, where, warnings)) rules.push(rule);
    }
  }
  return Object.freeze({ rules: Object.freeze(rules), warnings: Object.freeze(warnings) });
}

function importRule(table: unknown, tier: GeminiPolicyTier, id: string, where: string, warnings: string[]): PolicyRuleObject[] {
  const warn = (text: string): void => {
    warnings.push(`${where}: ${id} ${text}`);
  };
  if (!isRecord(table)) {
    warn('is not a table; skipped');
    return [];
  }
  const decision = typeof table.decision === 'string' && Object.hasOwn(DECISIONS, table.decision) ? DECISIONS[table.decision] : undefined;
  if (decision === undefined) {
    warn('has no valid decision (allow, deny, ask_user); skipped');
    return [];
  }
  const rawPriority = table.priority ?? 0;
  if (typeof rawPriority !== 'number' || !Number.isFinite(rawPriority) || rawPriority < 0 || rawPriority > 999) {
    warn('has a priority outside 0–999; skipped');
    return [];
  }
  if (Array.isArray(table.modes) && table.modes.length > 0) {
    if (decision === 'allow') {
      warn('is an allow restricted to some approval modes; toolgate rules are mode-agnostic, so it was dropped (it would widen)');
      return [];
    }
    warn(`applies in every mode: its modes restriction is ignored (a ${decision} rule only narrows)`);
  }
  const tools = toolNames(table, warn);
  if (tools.length === 0) return [];
  const matches = matchesFor(table, decision, warn);
  if (matches === undefined) return [];
  const rules: PolicyRuleObject[] = [];
  for (const [toolIndex, tool] of tools.entries()) {
    for (const [matchIndex, match] of matches.entries()) {
      const suffix = tools.length * matches.length > 1 ? `.${toolIndex}.${matchIndex}` : '';
      const rule: PolicyRuleObject = {
        id: `${id}${suffix}`,
        tool,
        decision,
        source: TIER_SOURCE[tier],
        priority: TIER_BASE[tier] * 1000 + rawPriority,
        ...(match === undefined ? {} : { match }),
        ...(typeof table.denyMessage === 'string' ? { reason: table.denyMessage.slice(0, 200) } : {}),
      };
      try {
        compileRule(rule, 0);
        rules.push(rule);
      } catch (error) {
        if (!(error instanceof PolicyRuleError)) throw error;
        warn(`could not be mapped (${error.problem}); skipped`);
      }
    }
  }
  return rules;
}

function toolNames(table: Record<string, unknown>, warn: (text: string) => void): string[] {
  const raw = table.toolName;
  const names = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw.filter((entry): entry is string => typeof entry === 'string') : [];
  if (typeof table.mcpName === 'string') return [`mcp__${table.mcpName}`];
  if (names.length === 0) return ['*'];
  const mapped: string[] = [];
  for (const name of names) {
    if (Object.hasOwn(GEMINI_TOOLS, name)) mapped.push(...(GEMINI_TOOLS[name] ?? []));
    else if (/^[A-Za-z0-9_-]+__\*$/.test(name)) mapped.push(`mcp__${name.slice(0, -3)}`);
    else if (/^[A-Za-z0-9_-]+__[A-Za-z0-9_-]+$/.test(name)) mapped.push(`mcp__${name}`);
    else if (name === '*') mapped.push('*');
    else warn(`names tool "${name.slice(0, 60)}", which has no toolgate equivalent; that name was skipped`);
  }
  return mapped;
}

/** One match per command prefix; `[undefined]` for a tool-wide rule; undefined to skip. */
function matchesFor(table: Record<string, unknown>, decision: RuleDecision, warn: (text: string) => void): (RuleMatch | undefined)[] | undefined {
  const prefixes = typeof table.commandPrefix === 'string' ? [table.commandPrefix] : Array.isArray(table.commandPrefix) ? table.commandPrefix.filter((entry): entry is string => typeof entry === 'string') : [];
  // Gemini CLI matches commandRegex inside the JSON arguments, after `"command":"`; a leading `^` means exactly there.
  const pattern = typeof table.argsPattern === 'string' ? table.argsPattern : typeof table.commandRegex === 'string' ? `"command":"${table.commandRegex.replace(/^\^/, '')}` : undefined;
  if (prefixes.length > 0 && pattern !== undefined) {
    warn('combines commandPrefix with argsPattern/commandRegex; toolgate keeps the prefix only');
  }
  if (prefixes.length > 0) {
    return prefixes.map((prefix) => {
      const argv = [...splitCommand(prefix)];
      // Gemini compares string prefixes: a deny/ask keeps that breadth on the last word, an allow stays per element.
      if (decision !== 'allow' && argv.length > 0 && !prefix.endsWith(' ')) argv[argv.length - 1] = `${argv[argv.length - 1] ?? ''}*`;
      return { argv: [...argv, '*'] };
    });
  }
  if (pattern !== undefined) {
    warn('uses argsPattern/commandRegex, matched against the canonical JSON of toolgate\'s arguments (names may differ)');
    try {
      new RegExp(pattern, 'u');
    } catch {
      warn('has an invalid regular expression; skipped');
      return undefined;
    }
    return [{ argsPattern: pattern }];
  }
  return [undefined];
}
