import type { ToolRisk } from '../tools/tool-types.js';
import type { ArgumentPolicyInput, PolicyDecision, PolicyToolView, ToolPolicy, PathPlacement } from './policy-types.js';
import type { FsScopeTier } from './check-guardrails.js';
import type { RateLimits } from './rate-limiter.js';
import type { PolicyRule, RuleDecision, RuleSource } from './rule-types.js';
import type { PolicyTarget } from '../tools/tool-types.js';

/** How the shipped confirm hook treats governed calls. The engine itself is mode-agnostic. */
export type ApprovalMode = 'ask' | 'plan' | 'accept-edits' | 'auto';

export interface FsScope {
  readonly tier: FsScopeTier;
  /** Absolute workspace roots; relative paths are inside the first. */
  readonly roots?: readonly string[];
}

export interface ManagedSwitches {
  /** Only `managed` rules load; every other source is dropped (with a warning). */
  readonly allowManagedRulesOnly?: boolean;
  /** The confirm hook never runs in `auto` mode (it falls back to `ask`). */
  readonly disableAutoMode?: boolean;
}

export interface CreatePolicyOptions {
  /** Rules in object or Claude Code string form. A rule failing its own tests refuses to load. */
  readonly rules?: readonly PolicyRule[];
  /** Exact argvs (a string is split on runs of spaces). Empty or absent: every command is denied. */
  readonly allowedCommands?: readonly (string | readonly string[])[];
  /** Opt-in element globs (`git log *`, or `*` for any command, which then needs approval). */
  readonly allowedCommandGlobs?: readonly (string | readonly string[])[];
  /** Exact FQDNs, or `*.` + FQDN for subdomains. Empty or absent: all http egress is denied. */
  readonly allowedDomains?: readonly string[];
  /** The configured MCP servers an `mcp` egress tool may call. Empty or absent: none. */
  readonly mcpServers?: readonly string[];
  /** Filesystem scope tier. Absent: the host's filesystem policy is the scope. */
  readonly scope?: FsScope | FsScopeTier;
  /** Added to the default protected paths (gitignore-style globs). */
  readonly protectedPaths?: readonly string[];
  /**
   * Protected paths whose reads need no person (gitignore-style globs, like
   * `protectedPaths`): for a file that only looks like a secret, such as a
   * committed `.env.example`. Writes to them are still protected.
   */
  readonly readableProtectedPaths?: readonly string[];
  /** The approval mode the shipped confirm hook starts in; recorded for `explain`. Default `ask`. */
  readonly mode?: ApprovalMode;
  /**
   * The user's home directory: `~/` in a path rule (`Read(~/.ssh/**)`) names
   * it. Without it, such a rule matches only a path written with `~/`.
   */
  readonly home?: string;
  /**
   * Where an absolute path really leads, as the host resolves it: a deny or
   * ask of an absolute path (`//link/proj/secret.txt`, `~/proj/keys/**` under
   * a home that is a link) then also names the file there. Read once, when
   * the policy is built.
   */
  readonly realPath?: (path: string) => string;
  /** Every call at or above this risk needs an approval. */
  readonly approveAtRisk?: ToolRisk;
  readonly rateLimits?: RateLimits;
  readonly managed?: ManagedSwitches;
  /** The snapshot version. Default: the next value of a process-wide counter. */
  readonly version?: number;
}

/** A rule the policy holds, as a person reads it. */
export interface RuleInForce {
  readonly id: string;
  readonly source: RuleSource;
  readonly decision: RuleDecision;
  readonly rule: string;
  readonly priority: number;
  readonly band: 'managed' | 'default';
  readonly reason: string | undefined;
}

/** One rule in an explanation. */
export interface ExplainedRule extends RuleInForce {
  readonly winner: boolean;
}

export interface PolicyExplanation {
  readonly decision: PolicyDecision;
  readonly version: number;
  readonly mode: ApprovalMode;
  /** Every rule that matched, best first, with its source. */
  readonly rules: readonly ExplainedRule[];
  /** The floor denial, when the guardrails decided. */
  readonly guardrail: { readonly reason: string; readonly detail: string } | undefined;
  /** What was considered: the argv, the normalised paths, the canonical host, the server. */
  readonly considered: { readonly argv?: readonly string[]; readonly paths?: readonly string[]; readonly host?: string; readonly server?: string };
  /** Plain-language notes: defaults applied, protected path, risk threshold. */
  readonly notes: readonly string[];
}

/** A call to explain: a tool view (or just a name, whose class is inferred from the target). */
export interface ExplainCall {
  readonly tool: PolicyToolView | string;
  readonly target?: PolicyTarget;
  readonly args?: unknown;
  readonly agent?: string;
  readonly gateApproved?: boolean;
}

/** An immutable, versioned policy snapshot. */
export interface PolicySnapshot extends ToolPolicy {
  readonly mode: ApprovalMode;
  readonly managed: Required<ManagedSwitches>;
  readonly scope: FsScope | undefined;
  /** Notes from loading (rules dropped by `allowManagedRulesOnly`). */
  readonly warnings: readonly string[];
  /** Every rule in force, in the order they were given (those `allowManagedRulesOnly` dropped are not). */
  readonly rules: readonly RuleInForce[];
  explain(call: ExplainCall): PolicyExplanation;
  /** Decide without taking rate-limit tokens: for re-checking a pending call against this snapshot. */
  recheck(input: ArgumentPolicyInput): PolicyDecision;
  /** Whether a path is protected (defaults plus additions). */
  isProtectedPath(path: string): boolean;
  /** Whether a path lies inside the workspace (relative without climbing out, or under a root). */
  isInsideWorkspace(path: string): boolean;
  classifyPath(path: string): PathPlacement;
}
