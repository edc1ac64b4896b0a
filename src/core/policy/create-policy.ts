import { ConfigurationError } from '../errors/tool-errors.js';
import { parseDomainPattern, type DomainPattern } from './canonical-host.js';
import type { GuardrailConfig } from './check-guardrails.js';
import { compileRule, isList } from './compile-rule.js';
import { describeRule } from './describe-rule.js';
import { evaluateCall, matchedOf, NO_RULES, riskNeedsAsk, RISK_ORDER, type CallEvaluator } from './evaluate-call.js';
import { compareRules } from './evaluate-rules.js';
import { explainCall } from './explain-call.js';
import { governMcpCall } from './govern-mcp-call.js';
import { normalizePath } from './normalize-path.js';
import type { CreatePolicyOptions, FsScope, PolicySnapshot } from './policy-snapshot-types.js';
import type { IdentityPolicyInput, PathPlacement, PolicyDecision } from './policy-types.js';
import { createPathMatcher, createProtectedPathMatcher } from './protected-paths.js';
import { createRateLimiter } from './rate-limiter.js';
import { createRuleIndex } from './rule-index.js';
import type { CompiledRule } from './rule-types.js';
import { splitCommand } from './split-command.js';

let lastVersion = 0;

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
  const config = guardrailConfig(options, scope);
  const warnings: string[] = [];
  const rules = compileRules(options.rules ?? [], managed.allowManagedRulesOnly, warnings, { home: options.home, realPath: options.realPath });
  const isProtected = createProtectedPathMatcher(stringList(options.protectedPaths, 'protectedPaths'));
  const readable = stringList(options.readableProtectedPaths, 'readableProtectedPaths');
  const evaluator: CallEvaluator = {
    version,
    roots,
    config,
    rules: createRuleIndex(rules),
    isProtected,
    isReadable: readable.length === 0 ? (): boolean => false : createPathMatcher(readable),
    takeToken: createRateLimiter(options.rateLimits),
    approveAtRisk,
  };
  const identityCache = new Map<string, PolicyDecision>();
  const plainAllow: PolicyDecision = Object.freeze({ kind: 'allow', matched: NO_RULES, policyVersion: version });
  const rateLimited = options.rateLimits !== undefined;

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
        decision = Object.freeze(identityDecision(rules, key, version));
        if (identityCache.size < 4096) identityCache.set(key, decision);
      }
      return decision;
    },
    decideArguments(input) {
      // A call with no target, no governed class, no rule, no limit and no risk threshold: nothing to decide.
      const { policy } = input.tool;
      if (input.target === undefined && !policy.requiresGate && !policy.spawnsProcess && policy.egress === undefined && !policy.fsScoped && !policy.fsWrite && !rateLimited && !riskNeedsAsk(input.tool, approveAtRisk) && evaluator.rules.forTool(input.tool.name).length === 0) {
        return plainAllow;
      }
      return evaluateCall(input, true, evaluator).decision;
    },
    recheck: (input) => evaluateCall(input, false, evaluator).decision,
    explain: (call) => explainCall(call, { version, mode, rules, evaluate: (input) => evaluateCall(input, false, evaluator), identity: (input) => snapshot.decideIdentity(input) }),
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

/** The floor's own lists, checked and frozen: exact commands and globs, HTTPS domains, configured MCP servers, the scope tier. */
function guardrailConfig(options: CreatePolicyOptions, scope: FsScope | undefined): GuardrailConfig {
  return Object.freeze({
    commands: Object.freeze({ commands: commandList(options.allowedCommands, 'allowedCommands'), globs: commandList(options.allowedCommandGlobs, 'allowedCommandGlobs') }),
    domains: Object.freeze((options.allowedDomains ?? []).map(domainPattern)),
    mcpServers: new Set(stringList(options.mcpServers, 'mcpServers')),
    tier: scope?.tier,
  });
}

/**
 * Stage 4 refuses a tool outright only when a tool-wide deny outranks (or
 * ties) every non-deny rule for the tool: then no argument can change the
 * outcome. Everything else is decided on the arguments.
 */
function identityDecision(rules: readonly CompiledRule[], tool: string, version: number): PolicyDecision {
  const forTool = rules.filter((rule) => rule.tools(tool));
  const blanketDeny = forTool.filter((rule) => rule.decision === 'deny' && rule.match.kind === 'any').sort(compareRules)[0];
  if (blanketDeny !== undefined && forTool.every((rule) => rule.decision === 'deny' || compareRules(blanketDeny, rule) <= 0)) {
    return { kind: 'deny', reason: 'rule_denied', detail: `was refused by policy rule "${blanketDeny.id.slice(0, 80)}"`, matched: matchedOf([blanketDeny]), policyVersion: version };
  }
  return { kind: 'allow', matched: NO_RULES, policyVersion: version };
}

function compileRules(input: NonNullable<CreatePolicyOptions['rules']>, managedOnly: boolean, warnings: string[], options: Parameters<typeof compileRule>[2]): readonly CompiledRule[] {
  if (!isList(input)) throw new ConfigurationError('rules', 'must be an array');
  const compiled: CompiledRule[] = [];
  for (const [index, rule] of (input).entries()) {
    const next = compileRule(rule, index, options);
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
