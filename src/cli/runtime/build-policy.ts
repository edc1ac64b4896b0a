import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, relative } from 'node:path';
import { createPolicy, literalPathGlob, type PolicyRule, type PolicySnapshot } from '../../core/internal.js';
import { realOrSelf } from '../../node/fs/fs-jail.js';
import { isTrustedPolicyFile, policyFilePaths, readPolicyFile } from '../../node/policy/policy-file.js';
import { CliError } from '../cli-error.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { importedAllowCeiling, importedAskCeiling, pinnedAllows, rankImportedAllows, rankImportedAsks } from './imported-allows.js';
import { importPolicyFile } from './import-policy-file.js';
import { upstreamServerEntries, upstreamServerFiles } from './upstream-server-files.js';

export interface BuiltPolicy {
  readonly snapshot: PolicySnapshot;
  /** Lossy mappings from imported files, and load notes. */
  readonly warnings: readonly string[];
  /** How many rules loaded, by where they came from: the configuration, its imports, earlier "always" approvals. */
  readonly counts: { readonly config: number; readonly imported: number; readonly remembered: number };
}

/**
 * The policy a gateway runs under: the config's rules and allowlists, plus
 * the rules imported from Claude Code and Gemini CLI files. The journal and
 * the config file itself are protected paths: a model never edits its own
 * policy or audit trail.
 */
/** Prefix of the ids of rules an "always" approval wrote: the gateway's approver honours them without asking. */
export const REMEMBERED_RULE_PREFIX = 'remembered:';

/**
 * The rules earlier "always" approvals wrote to the project and user policy
 * files. A file that exists but cannot be read refuses the start: a reload
 * must never silently drop rules.
 */
/**
 * The rules "always" approvals wrote, as what they are: approvals of the
 * project or the user, at priority 0, never managed, whatever a file says.
 * A project file this user's toolgate did not write (one a cloned repository
 * ships) approves nothing: only its deny and ask rules, which can only
 * narrow, are kept, and a warning says so.
 */
async function rememberedRules(config: ResolvedConfig, warnings: string[]): Promise<PolicyRule[]> {
  const paths = policyFilePaths({ projectRoot: config.workspace, home: homedir() });
  const rules: PolicyRule[] = [];
  for (const [where, file] of [['project', paths.project], ['user', paths.user]] as const) {
    let read;
    try {
      read = await readPolicyFile(file);
    } catch (error) {
      throw new CliError('config', `The ${where} policy file ${file} cannot be loaded: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const trusted = where === 'user' || (await isTrustedPolicyFile(file, paths.trusted));
    let ignored = 0;
    read.rules.forEach((rule, index) => {
      const remembered = asRemembered(rule, where);
      if (!trusted && remembered.decision === 'allow') ignored += 1;
      else rules.push({ ...remembered, id: `${REMEMBERED_RULE_PREFIX}${where}:${index}` });
    });
    if (ignored > 0) warnings.push(`${file} was not written by this user's toolgate (a repository can ship one): its ${ignored} allow rule(s) are ignored. Approve again, or put the rules you trust in the configuration.`);
  }
  return rules;
}

function asRemembered(rule: PolicyRule, where: 'project' | 'user'): PolicyRule {
  const { priority: _priority, band: _band, ...rest } = rule;
  return { ...rest, source: where };
}

/**
 * A rule's id is what a denial, a receipt and a load error name: its text, the
 * file it came from and where in that file, so a person finds it without
 * knowing how the engine numbers rules.
 */
function ruleId(text: string | undefined, file: string, where: string): string {
  return `${text === undefined ? '' : `${text} `}(${file} ${where})`;
}

/** The file as a person in the workspace names it. */
function shownFile(config: ResolvedConfig, file: string): string {
  const inside = relative(config.workspace, file);
  return inside.startsWith('..') || isAbsolute(inside) ? file : inside;
}

/** An importer names rules by their place in one file: each id gains the file and the import's position, so two imports never share one. */
function numbered(config: ResolvedConfig, rules: readonly PolicyRule[], file: string, position: number): PolicyRule[] {
  return rules.map((rule) => ({ ...rule, id: ruleId('rule' in rule ? rule.rule : undefined, shownFile(config, file), `${rule.id ?? ''}, policy.imports[${String(position)}]`) }));
}

/** The config's rules in the policy engine's form: a bare string allows, `source` defaults to the project; each is named by its text and key. */
export function configRules(config: ResolvedConfig): PolicyRule[] {
  const { allow = [], ask = [], deny = [], rules = [] } = config.policy;
  const file = config.file === undefined ? 'the default configuration' : shownFile(config, config.file);
  const listed = (decision: 'allow' | 'ask' | 'deny', list: readonly string[]): PolicyRule[] =>
    list.map((rule, index) => ({ rule, decision, source: 'project', id: ruleId(rule, file, `policy.${decision}[${String(index)}]`) }));
  const written = rules.map((rule, index): PolicyRule => {
    const where = `policy.rules[${String(index)}]`;
    if (typeof rule === 'string') return { rule, decision: 'allow', source: 'project', id: ruleId(rule, file, where) };
    const object = rule as { readonly id?: unknown; readonly rule?: unknown };
    const text = typeof object.rule === 'string' ? object.rule : typeof object.id === 'string' ? object.id : undefined;
    return { source: 'project', ...(rule as object), id: ruleId(text, file, where) } as PolicyRule;
  });
  return [...listed('allow', allow), ...listed('ask', ask), ...listed('deny', deny), ...written];
}

export async function buildPolicy(config: ResolvedConfig): Promise<BuiltPolicy> {
  const warnings: string[] = [];
  const remembered = await rememberedRules(config, warnings);
  const written = configRules(config);
  const operator = [...written, ...remembered];
  const files: (readonly PolicyRule[])[] = [];
  for (const [position, entry] of (config.policy.imports ?? []).entries()) files.push(await importedRules(config, { ...entry, position }, warnings));
  const imported = files.flatMap((rules, index) => rankedImports(rules, operator, files.filter((_, other) => other !== index).flat(), config.policy.imports?.[index]?.path ?? '', warnings));
  // The imported files too: a model that rewrites one changes the rules of the next start; and the files the next
  // start runs as upstream servers, outside the sandbox. Each by its name: a glob character in one is no pattern.
  const ownFiles = [config.journal.path, ...(config.file === undefined ? [] : [config.file]), ...(config.policy.imports ?? []).map((entry) => entry.path), ...upstreamServerFiles(config), ...upstreamServerEntries(config)]
    .map((file) => relative(config.workspace, file))
    .filter((file) => !file.startsWith('..'))
    .map(literalPathGlob);
  try {
    const snapshot = createPolicy({
      rules: [...written, ...imported, ...remembered],
      allowedCommands: config.policy.allowedCommands ?? [],
      allowedCommandGlobs: config.policy.allowedCommandGlobs ?? [],
      allowedDomains: config.policy.allowedDomains ?? [],
      mcpServers: Object.keys(config.servers),
      // The workspace as spelled and as it really is: an absolute path inside it is judged as the relative one it is.
      scope: { tier: config.scope, roots: [...new Set([config.workspace, realWorkspace(config.workspace)])] },
      protectedPaths: [...(config.policy.protectedPaths ?? []), ...ownFiles, '.toolgate/**'],
      readableProtectedPaths: config.policy.readableProtectedPaths ?? [],
      mode: config.mode,
      home: homedir(),
      realPath: realOrSelf,
      ...(config.policy.approveAtRisk === undefined ? {} : { approveAtRisk: config.policy.approveAtRisk }),
    });
    return { snapshot, warnings: [...warnings, ...snapshot.warnings], counts: { config: written.length, imported: imported.length, remembered: remembered.length } };
  } catch (error) {
    throw new CliError('config', `The policy in ${config.file ?? 'the default configuration'} does not load: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * One `policy.imports` entry's rules: the file read once, parsed by its
 * importer as the user's or a project's file (`importPolicyFile`), its
 * allows kept only while the configuration pins these bytes.
 */
async function importedRules(config: ResolvedConfig, entry: ImportEntry & { readonly position: number }, warnings: string[]): Promise<PolicyRule[]> {
  const file = entry.path;
  const result = await importPolicyFile(entry, homedir());
  warnings.push(...result.warnings);
  return pinnedAllows(numbered(config, result.rules, file, entry.position), entry, result.sha256, file, warnings);
}

/**
 * One imported file's rules ranked among the rest: its allows below every
 * rule the operator wrote, its asks below every deny the operator wrote and
 * every deny of the other imported files. Each file ranks its rules in its
 * own peer's terms (a Claude Code deny sits at 0, a Gemini CLI workspace rule
 * at 3000 and more), so a repository's `ask_user` at 3999 outranked the deny
 * of the user's own Claude Code settings and turned it into a card.
 */
function rankedImports(rules: readonly PolicyRule[], operator: readonly PolicyRule[], others: readonly PolicyRule[], file: string, warnings: string[]): PolicyRule[] {
  const allowsRanked = rankImportedAllows(rules, importedAllowCeiling(operator), file, warnings);
  return rankImportedAsks(allowsRanked, importedAskCeiling([...operator, ...others]), operator, file, warnings);
}

type ImportEntry = NonNullable<ResolvedConfig['policy']['imports']>[number];

function realWorkspace(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch {
    return workspace;
  }
}
