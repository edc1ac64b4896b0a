import type { ResolvedCommand, ResolvedPath } from '../action/resolved-action.js';
import { argumentPaths } from './argument-paths.js';
import { describeRule } from './describe-rule.js';
import { ConfigurationError } from '../errors/tool-errors.js';
import type { ToolRisk } from '../tools/tool-types.js';
import { parseDomainPattern, parseHttpsTarget, type DomainPattern } from './canonical-host.js';
import { checkGuardrails, type GuardrailConfig, type GuardrailDenial, type GuardrailView } from './check-guardrails.js';
import { compileRule, isList } from './compile-rule.js';
import { compareRules, evaluateRules, type RuleVerdict } from './evaluate-rules.js';
import { explainCall } from './explain-call.js';
import { governMcpCall } from './govern-mcp-call.js';
import { normalizePath, type NormalizedPath } from './normalize-path.js';
import type { CreatePolicyOptions, FsScope, PolicySnapshot } from './policy-snapshot-types.js';
import type { ArgumentPolicyInput, IdentityPolicyInput, MatchedRule, PathPlacement, PolicyDecision, PolicyToolView } from './policy-types.js';
import { createPathMatcher, createProtectedPathMatcher, type ProtectedPathMatcher } from './protected-paths.js';
import { createRateLimiter } from './rate-limiter.js';
import type { CompiledRule } from './rule-types.js';
import { splitCommand } from './split-command.js';
import { upstreamStandIns } from './upstream-stand-ins.js';

const RISK_ORDER: Record<ToolRisk, number> = { low: 0, medium: 1, high: 2, critical: 3 };

let lastVersion = 0;
const NO_RULES: readonly MatchedRule[] = Object.freeze([]);
const coversAnyTool = (): boolean => true;

/** Everything one decision looked at; `explain` renders it. */
export interface PolicyEvaluation {
  readonly decision: PolicyDecision;
  readonly guardrail: GuardrailDenial | undefined;
  readonly verdict: RuleVerdict | undefined;
  readonly view: GuardrailView;
  readonly notes: readonly string[];
}

/**
 * Build an immutable, versioned policy snapshot: the guardrail
 * floor (exact commands, HTTPS + exact domains, configured MCP servers,
 * the gate, the filesystem scope) and, within it, declarative rules and
 * defaults. `createPolicy({})` is the fail-closed floor every registry
 * starts with. Decisions are synchronous and record the snapshot version.
 */
export function createPolicy(options: CreatePolicyOptions = {}): PolicySnapshot {
  const version = options.version ?? (lastVersion += 1);
  if (!Number.isSafeInteger(version) || version < 0) throw new ConfigurationError('version', 'must be a non-negative integer');
  if (options.version !== undefined && version > lastVersion) lastVersion = version;
  const managed = Object.freeze({
    allowManagedRulesOnly: options.managed?.allowManagedRulesOnly === true,
    disableAutoMode: options.managed?.disableAutoMode === true,
  });
  const mode = options.mode ?? 'ask';
  if (!['ask', 'plan', 'accept-edits', 'auto'].includes(mode)) throw new ConfigurationError('mode', 'must be ask, plan, accept-edits or auto');
  const approveAtRisk = options.approveAtRisk;
  if (approveAtRisk !== undefined && !Object.hasOwn(RISK_ORDER, approveAtRisk)) throw new ConfigurationError('approveAtRisk', 'must be low, medium, high or critical');
  const scope = resolveScope(options.scope);
  const roots = scope?.roots ?? [];
  const config: GuardrailConfig = Object.freeze({
    commands: Object.freeze({ commands: commandList(options.allowedCommands, 'allowedCommands'), globs: commandList(options.allowedCommandGlobs, 'allowedCommandGlobs') }),
    domains: Object.freeze((options.allowedDomains ?? []).map(domainPattern)),
    mcpServers: new Set(stringList(options.mcpServers, 'mcpServers')),
    tier: scope?.tier,
  });
  const warnings: string[] = [];
  const rules = compileRules(options.rules ?? [], managed.allowManagedRulesOnly, warnings, options.home);
  const isProtected = createProtectedPathMatcher(stringList(options.protectedPaths, 'protectedPaths'));
  const readable = stringList(options.readableProtectedPaths, 'readableProtectedPaths');
  const isReadable = readable.length === 0 ? (): boolean => false : createPathMatcher(readable);
  const takeToken = createRateLimiter(options.rateLimits);
  const identityCache = new Map<string, PolicyDecision>();
  // Per-call decisions are fresh literals with the version inline (no spread, no freeze: both cost more than the decision).
  const toMatched = (list: readonly CompiledRule[]): readonly MatchedRule[] => (list.length === 0 ? NO_RULES : list.map((rule) => rule.matched));
  const plainAllow: PolicyDecision = Object.freeze({ kind: 'allow', matched: NO_RULES, policyVersion: version });
  const rateLimited = options.rateLimits !== undefined;
  // Rules per tool name, computed once: a call only walks the rules that can name its tool.
  const ruleCache = new Map<string, readonly CompiledRule[]>();
  const rulesFor = (tool: string): readonly CompiledRule[] => {
    let list = ruleCache.get(tool);
    if (list === undefined) {
      list = rules.filter((rule) => rule.tools(tool));
      if (ruleCache.size < 4096) ruleCache.set(tool, list);
    }
    return list;
  };
  // An upstream tool's call also answers to the deny and ask rules of the built-ins its targets stand for.
  const standInCache = new Map<string, readonly CompiledRule[]>();
  const rulesForCall = (input: ArgumentPolicyInput): readonly CompiledRule[] => {
    const standIns = upstreamStandIns(input.tool, input.target);
    const own = rulesFor(input.tool.name);
    if (standIns.length === 0) return own;
    const key = `${input.tool.name}\u0000${standIns.join(',')}`;
    let list = standInCache.get(key);
    if (list === undefined) {
      const reaching = rules.filter((rule) => rule.decision !== 'allow' && !own.includes(rule) && standIns.some((name) => rule.tools(name)));
      list = [...own, ...reaching.map((rule) => Object.freeze({ ...rule, tools: coversAnyTool }))];
      if (standInCache.size < 4096) standInCache.set(key, list);
    }
    return list;
  };
  const needsAsk = (tool: PolicyToolView): boolean => approveAtRisk !== undefined && RISK_ORDER[tool.risk] >= RISK_ORDER[approveAtRisk];

  const evaluate = (input: ArgumentPolicyInput, consume: boolean): PolicyEvaluation => {
    const view = guardrailView(input, roots);
    const notes: string[] = [];
    const guardrail = checkGuardrails(input, config, view);
    if (guardrail !== undefined) {
      const decision: PolicyDecision =
        guardrail.recoverable === true
          ? { kind: 'deny', reason: guardrail.reason, detail: guardrail.detail, recoverable: true, matched: NO_RULES, policyVersion: version }
          : { kind: 'deny', reason: guardrail.reason, detail: guardrail.detail, matched: NO_RULES, policyVersion: version };
      return { decision, guardrail, verdict: undefined, view, notes };
    }
    const verdict = evaluateRules(rulesForCall(input), {
      tool: input.tool.name,
      // A tool that runs a fixed argv gives the policy no command: its declared argv stands for it.
      argv: view.argv ?? input.tool.fixedArgv,
      paths: view.paths,
      host: view.host,
      server: input.target?.server,
      args: input.args,
      rootless: roots.length === 0,
    });
    const matched = toMatched(verdict.matched);
    if (verdict.decision === 'deny') {
      const ruleId = verdict.winner?.id ?? '';
      return { decision: { kind: 'deny', reason: 'rule_denied', detail: `was refused by policy rule "${ruleId.slice(0, 80)}"`, matched, policyVersion: version }, guardrail, verdict, view, notes };
    }
    if (consume) {
      const rate = takeToken(input.tool.name, input.agent);
      if (!rate.ok) {
        notes.push(`rate limit per ${rate.scope}`);
        return { decision: { kind: 'deny', reason: 'rate_limited', retryAfterMs: rate.retryAfterMs, matched, policyVersion: version }, guardrail, verdict, view, notes };
      }
    }
    let ask: string | undefined = verdict.decision === 'ask' ? 'rule' : undefined;
    if (touchesProtected(input, view, isProtected, isReadable, roots)) {
      notes.push(input.tool.policy.fsWrite ? 'a protected path is never auto-approved' : 'a protected path is read only when a person says so');
      ask ??= 'protected_path';
    }
    if (needsAsk(input.tool)) {
      notes.push(`risk ${input.tool.risk} is at or above approveAtRisk ${approveAtRisk ?? ''}`);
      ask ??= 'risk';
    }
    if (verdict.decision === undefined) notes.push(input.tool.readOnly ? 'no rule matched: read-only tools allow' : 'no rule matched: the tool default applies (governed calls go to the approval regime)');
    const decision: PolicyDecision = ask === undefined ? { kind: 'allow', matched, policyVersion: version } : { kind: 'ask', reason: ask, matched, policyVersion: version };
    return { decision, guardrail, verdict, view, notes };
  };

  const snapshot: PolicySnapshot = {
    version,
    mode,
    managed,
    scope,
    warnings: Object.freeze(warnings),
    rules: Object.freeze(rules.map(describeRule)),
    decideIdentity(input: IdentityPolicyInput): PolicyDecision {
      const key = input.tool.name;
      let decision = identityCache.get(key);
      if (decision === undefined) {
        decision = Object.freeze(identityDecision(rules, key, toMatched, version));
        if (identityCache.size < 4096) identityCache.set(key, decision);
      }
      return decision;
    },
    decideArguments(input) {
      // A call with no target, no governed class, no rule, no limit and no risk threshold: nothing to decide.
      const { policy } = input.tool;
      if (input.target === undefined && !policy.requiresGate && !policy.spawnsProcess && policy.egress === undefined && !policy.fsScoped && !policy.fsWrite && !rateLimited && !needsAsk(input.tool) && rulesFor(input.tool.name).length === 0) {
        return plainAllow;
      }
      return evaluate(input, true).decision;
    },
    recheck: (input) => evaluate(input, false).decision,
    explain: (call) => explainCall(call, { version, mode, rules, evaluate: (input) => evaluate(input, false), identity: (input) => snapshot.decideIdentity(input) }),
    isProtectedPath(path: string): boolean {
      const normal = normalizePath(path, roots);
      return normal === undefined || isProtected(normal);
    },
    isInsideWorkspace(path: string): boolean {
      const normal = normalizePath(path, roots);
      return normal !== undefined && normal.relative !== undefined;
    },
    classifyPath(path: string): PathPlacement {
      const normal = normalizePath(path, roots);
      return normal === undefined ? { relative: undefined, protected: true } : { relative: normal.relative, protected: isProtected(normal) };
    },
  };
  return governMcpCall(snapshot);
}

/**
 * Stage 4 refuses a tool outright only when a tool-wide deny outranks (or
 * ties) every non-deny rule for the tool: then no argument can change the
 * outcome. Everything else is decided on the arguments.
 */
function identityDecision(
  rules: readonly CompiledRule[],
  tool: string,
  toMatched: (list: readonly CompiledRule[]) => readonly MatchedRule[],
  version: number,
): PolicyDecision {
  const forTool = rules.filter((rule) => rule.tools(tool));
  const blanketDeny = forTool.filter((rule) => rule.decision === 'deny' && rule.match.kind === 'any').sort(compareRules)[0];
  if (blanketDeny !== undefined && forTool.every((rule) => rule.decision === 'deny' || compareRules(blanketDeny, rule) <= 0)) {
    return { kind: 'deny', reason: 'rule_denied', detail: `was refused by policy rule "${blanketDeny.id.slice(0, 80)}"`, matched: toMatched([blanketDeny]), policyVersion: version };
  }
  return { kind: 'allow', matched: NO_RULES, policyVersion: version };
}

function guardrailView(input: ArgumentPolicyInput, roots: readonly string[]): GuardrailView {
  const target = input.target;
  const action = input.action;
  const command: unknown = target?.command;
  const argv =
    action?.command !== undefined
      ? action.command.argv
      : typeof command === 'string'
        ? splitCommand(command)
        : isList(command) && command.every((element) => typeof element === 'string')
          ? splitCommand(command)
          : undefined;
  const rawPaths = [...(target?.path === undefined ? [] : [target.path]), ...(isList(target?.paths) ? target.paths : [])];
  const paths: NormalizedPath[] = [];
  let invalidPath = false;
  for (const raw of rawPaths) {
    const normal = typeof raw === 'string' ? normalizePath(raw, roots) : undefined;
    if (normal === undefined) invalidPath = true;
    else paths.push(normal);
  }
  // Where each path really is, when a host resolved it somewhere else: rules and the floor judge both, so an
  // allow must cover the real target too and a deny on either one refuses.
  const linkedOut: ResolvedPath[] = [];
  for (const file of action?.resolvedBy === 'host' ? action.files : []) {
    if (file.real === file.path && !file.linkTraversal) continue;
    const real = normalizePath(file.real, roots);
    if (real === undefined) invalidPath = true;
    else if (!paths.some((known) => known.path === real.path)) paths.push(real);
    if (file.linkTraversal && file.outside) linkedOut.push(file);
  }
  let host: string | undefined;
  if (typeof target?.url === 'string') {
    const parsed = parseHttpsTarget(target.url);
    if (parsed.ok) host = parsed.host;
  }
  return { argv, paths, host, invalidPath, linkedOut: linkedOut.length > 0 };
}

/**
 * Whether a call reaches a protected path, as spelled or where it really is
 * (`view.paths` holds both): a write always asks; a read or a command's
 * working directory asks unless every protected path it touches is one
 * `readableProtectedPaths` lets be read. A path only the host protects (its
 * own state) is never exempt, nor is a file with more than one hard link:
 * it may be another name of a protected file, and no lookup by name finds
 * the others. A command that names a protected path in its arguments asks
 * too, exempt or not: nothing says whether the program reads or writes it,
 * and so does one whose arguments reach a protected file by another name.
 */
function touchesProtected(input: ArgumentPolicyInput, view: GuardrailView, isProtected: ProtectedPathMatcher, isReadable: (path: NormalizedPath) => boolean, roots: readonly string[]): boolean {
  const { policy } = input.tool;
  if (!policy.fsWrite && !policy.fsScoped && !policy.spawnsProcess) return false;
  if (policy.spawnsProcess && view.argv !== undefined && (argumentPaths(view.argv, input.action?.command?.cwd.path ?? '.', roots).some(isProtected) || argumentsReachProtected(input.action?.command))) return true;
  const protectedPaths = view.paths.filter(isProtected);
  const hostOnly = input.action?.files.some((file) => file.hardLinked || (file.protected && protectedPaths.length === 0)) === true;
  if (protectedPaths.length === 0 && !hostOnly) return false;
  return policy.fsWrite || hostOnly || !protectedPaths.every(isReadable);
}

/**
 * Whether a command's arguments reach a protected file by another name, as
 * the host resolved them: a link whose real path is protected, or a file
 * with several hard links. A command naming more paths than the host
 * resolves is judged as reaching one.
 */
function argumentsReachProtected(command: ResolvedCommand | undefined): boolean {
  if (command === undefined) return false;
  return command.tooManyArguments === true || command.arguments?.some((path) => path.protected || path.hardLinked) === true;
}

function compileRules(input: NonNullable<CreatePolicyOptions['rules']>, managedOnly: boolean, warnings: string[], home: string | undefined): readonly CompiledRule[] {
  if (!isList(input)) throw new ConfigurationError('rules', 'must be an array');
  const compiled: CompiledRule[] = [];
  for (const [index, rule] of (input).entries()) {
    const next = compileRule(rule, index, { home });
    if (managedOnly && next.source !== 'managed') {
      warnings.push(`rule "${next.id}" was dropped: allowManagedRulesOnly admits managed rules only`);
      continue;
    }
    compiled.push(next);
  }
  const ids = new Set<string>();
  for (const rule of compiled) {
    if (ids.has(rule.id)) throw new ConfigurationError('rules', `has two rules with the id "${rule.id.slice(0, 80)}"`);
    ids.add(rule.id);
  }
  return Object.freeze(compiled);
}

function resolveScope(scope: CreatePolicyOptions['scope']): FsScope | undefined {
  if (scope === undefined) return undefined;
  const resolved = typeof scope === 'string' ? { tier: scope } : scope;
  if (!['read-only', 'workspace-write', 'full'].includes(resolved.tier)) throw new ConfigurationError('scope.tier', 'must be read-only, workspace-write or full');
  for (const root of resolved.roots ?? []) {
    if (normalizePath(root)?.absolute !== true) throw new ConfigurationError('scope.roots', 'must list absolute paths');
  }
  return Object.freeze({ tier: resolved.tier, ...(resolved.roots === undefined ? {} : { roots: Object.freeze([...resolved.roots]) }) });
}

function commandList(list: CreatePolicyOptions['allowedCommands'], field: string): readonly (readonly string[])[] {
  if (list === undefined) return Object.freeze([]);
  if (!isList(list)) throw new ConfigurationError(field, 'must be an array of commands');
  return Object.freeze(
    list.map((entry: unknown) => {
      if (typeof entry !== 'string' && !(isList(entry) && entry.every((element) => typeof element === 'string'))) throw new ConfigurationError(field, 'must hold strings or argv arrays');
      const argv = splitCommand(entry);
      if (argv.length === 0 || argv.some((element) => typeof element !== 'string' || element.length === 0)) throw new ConfigurationError(field, 'must not hold an empty command or argument');
      return argv;
    }),
  );
}

function stringList(list: readonly string[] | undefined, field: string): readonly string[] {
  if (list === undefined) return [];
  if (!isList(list) || list.some((entry) => typeof entry !== 'string' || entry.length === 0)) throw new ConfigurationError(field, 'must be an array of non-empty strings');
  return list;
}

function domainPattern(entry: string): DomainPattern {
  const pattern = parseDomainPattern(entry);
  if (pattern === undefined) throw new ConfigurationError('allowedDomains', 'must hold host names or *.host patterns (no scheme, port, path or userinfo)');
  return pattern;
}
