import type { ArgumentPolicyInput } from './policy-types.js';
import { matchDomain, parseHttpsTarget, type DomainPattern } from './canonical-host.js';
import { checkCommand, type CommandAllowlist } from './check-command.js';
import { checkSearchQuery } from './check-search-query.js';
import type { NormalizedPath } from './normalize-path.js';

export type FsScopeTier = 'read-only' | 'workspace-write' | 'full';

export interface GuardrailConfig {
  readonly commands: CommandAllowlist;
  readonly domains: readonly DomainPattern[];
  readonly mcpServers: ReadonlySet<string>;
  /** Undefined: the host's filesystem policy is the scope (paths climbing out with `..` are still refused). */
  readonly tier: FsScopeTier | undefined;
}

export interface GuardrailDenial {
  readonly reason: string;
  readonly detail: string;
  readonly recoverable?: boolean;
}

/** What the floor looked at, shared with rule evaluation and `explain`. */
export interface GuardrailView {
  readonly argv: readonly string[] | undefined;
  readonly paths: readonly NormalizedPath[];
  readonly host: string | undefined;
  /** A declared path could not be read as a path (empty, NUL byte). */
  readonly invalidPath: boolean;
  /** A host resolved a path through a symlink to a place outside the workspace. */
  readonly linkedOut?: boolean;
}

/**
 * The guardrails: a floor no rule, mode, hook or remembered approval
 * can lift. Returns the first denial, or undefined when the call is within
 * the floor.
 */
export function checkGuardrails(input: ArgumentPolicyInput, config: GuardrailConfig, view: GuardrailView): GuardrailDenial | undefined {
  const { policy } = input.tool;
  const target = input.target;
  if (policy.requiresGate && !input.gateApproved) return { reason: 'gate_required', detail: 'needs a gate approval, which this call does not have' };
  // An upstream MCP tool's argument targets are judged as a built-in's are: its command by the command
  // allowlist, its URL by the domain floor, whether or not the tool is governed.
  const upstream = input.tool.source === 'mcp';
  if ((policy.spawnsProcess || upstream) && target?.command !== undefined) {
    const verdict = view.argv === undefined ? undefined : checkCommand(view.argv, config.commands);
    if (verdict === undefined || !verdict.ok) return { reason: 'command_not_allowed', detail: verdict?.detail ?? 'was refused: the command is malformed' };
  }
  if (policy.egress === 'http' || (upstream && target?.url !== undefined)) {
    if (target?.url === undefined) return { reason: 'domain_not_allowed', detail: 'was refused: the tool declares no URL target to check' };
    const parsed = parseHttpsTarget(target.url);
    if (!parsed.ok) return { reason: parsed.reason, detail: parsed.detail };
    if (!config.domains.some((pattern) => matchDomain(pattern, parsed.host))) return { reason: 'domain_not_allowed', detail: 'was refused: the domain is not in the allowed domains' };
  }
  if (policy.egress === 'search' && target?.query !== undefined) {
    const problem = checkSearchQuery(target.query);
    if (problem !== undefined) return { reason: 'query_rejected', detail: problem };
  }
  if (policy.egress === 'mcp' && (target?.server === undefined || !config.mcpServers.has(target.server))) {
    return { reason: 'server_not_allowed', detail: 'was refused: the MCP server is not configured' };
  }
  if (policy.fsScoped || policy.fsWrite) return checkScope(view, policy.fsWrite, config.tier);
  return undefined;
}

function checkScope(view: GuardrailView, write: boolean, tier: FsScopeTier | undefined): GuardrailDenial | undefined {
  const denied = (detail: string): GuardrailDenial => ({ reason: 'scope_denied', detail, recoverable: true });
  const paths = view.paths;
  if (view.invalidPath) return denied('was refused: the path is not a valid path');
  if (paths.some((path) => path.escapes)) return denied('was refused: the path climbs out of the workspace');
  if (tier === undefined || tier === 'full') return undefined;
  // The host would refuse it too, at execution; refusing here keeps it from ever reaching an approver.
  if (view.linkedOut === true) return { reason: 'symlink_refused', detail: 'was refused: a symlink in the path leads out of the workspace' };
  if (write && tier === 'read-only') return denied('was refused: the filesystem scope is read-only');
  if (paths.some((path) => path.relative === undefined)) return denied('was refused: the path is outside the allowed filesystem scope');
  return undefined;
}
