import type { ToolApprovalRequest } from './approval-types.js';
import { canonicalHost } from './canonical-host.js';
import type { RememberedApproval } from './create-confirm.js';
import { MCP_CALL_TOOL } from './govern-mcp-call.js';
import { normalizePath } from './normalize-path.js';
import { REDACTED } from './redact-secrets.js';
import type { PolicyRuleObject, RuleMatch } from './rule-types.js';
import { splitCommand } from './split-command.js';

export interface RememberKey {
  readonly id: string;
  readonly entry: Omit<RememberedApproval, 'scope' | 'mode'>;
  /** The allow rule matching what the key matches (for any agent: a rule names none), or undefined where no rule can say exactly that. */
  readonly rule: Pick<PolicyRuleObject, 'tool' | 'match' | 'tests'> | undefined;
}

/** The built-in search: the host it shows is the provider's, while the query — what leaves — is not shown as a target. */
const SEARCH_TOOL = 'web_search';

/**
 * Remembered approvals are keyed by the tool, the agent and the whole target
 * the approver saw: the command with its working directory, the MCP server
 * with the MCP tool, the path, the host. A call that shows none of these is
 * keyed by its action digest (the digest of its canonical input, tool
 * version and agent), so only the identical call is approved again.
 */
export function rememberKey(request: ToolApprovalRequest): RememberKey | undefined {
  const tool = request.toolName.split('@')[0] ?? request.toolName;
  const agent = request.agent;
  const { command, path, host } = request.unredactedPreview;
  const key = (kind: RememberedApproval['kind'], value: string, also: RememberedApproval['also'], rule: RememberKey['rule']): RememberKey => ({
    id: JSON.stringify([request.toolName, agent ?? null, kind, value, also?.path ?? null, also?.host ?? null]),
    entry: { tool, agent, kind, value, ...(also === undefined ? {} : { also }) },
    rule,
  });
  // A call outside the governed classes that shows no target (a rule asked about it) is not remembered.
  const byInput = (): RememberKey | undefined => (request.action === undefined ? undefined : key('digest', request.actionDigest, undefined, undefined));
  if (tool === SEARCH_TOOL) return byInput();
  if (tool === MCP_CALL_TOOL) {
    const mcpTool = shownMcpTool(request);
    return mcpTool === undefined || host === undefined || command !== undefined || path !== undefined ? byInput() : key('mcp', JSON.stringify([host, mcpTool]), undefined, undefined);
  }
  if (command !== undefined) {
    const argv = splitCommand(command);
    const also = alongside(path, host);
    // An argv rule cannot bind a working directory: one with it would allow the command in any directory.
    return key('argv', JSON.stringify(argv), also, also === undefined ? exactArgvRule(tool, argv) : undefined);
  }
  if (path !== undefined) {
    const also = alongside(undefined, host);
    // A rule file trims its patterns: a path with outer spaces could not be said exactly, so it is not persisted.
    return key('path', path, also, also === undefined && path.trim() === path ? { tool, match: { path: exactPathGlob(path) } } : undefined);
  }
  if (host !== undefined) {
    const domain = exactDomain(host);
    return key('host', host, undefined, domain === undefined ? undefined : { tool, match: { domain } });
  }
  return byInput();
}

function alongside(path: string | undefined, host: string | undefined): RememberedApproval['also'] {
  if (path === undefined && host === undefined) return undefined;
  return { ...(path === undefined ? {} : { path }), ...(host === undefined ? {} : { host }) };
}

/**
 * The MCP tool name an `mcp_call` approver was shown beside the server,
 * when what was shown is the name itself: a redacted or clipped name stands
 * for many, so such a call is keyed by its input instead.
 */
function shownMcpTool(request: ToolApprovalRequest): string | undefined {
  const shown = request.arguments;
  if (typeof shown !== 'object' || shown === null) return undefined;
  const { server, tool } = shown as { readonly server?: unknown; readonly tool?: unknown };
  if (typeof tool !== 'string' || tool.length === 0 || server !== request.unredactedPreview.host) return undefined;
  return tool.includes(REDACTED) || /… \[\d+ more characters\]$/u.test(tool) ? undefined : tool;
}

/**
 * An argv rule that matches exactly this argv: `exact: true`, so a `*` the
 * person approved is a literal asterisk, never a glob. With a `*` in it the
 * rule also carries a counter-example that only a glob would match, so a
 * reader that ignores the flag refuses to load the rule instead of widening it.
 */
function exactArgvRule(tool: string, argv: readonly string[]): RememberKey['rule'] {
  const match: RuleMatch = { argv: [...argv], exact: true };
  if (!argv.some((element) => element.includes('*'))) return { tool, match };
  return { tool, match, tests: { match: [[...argv]], notMatch: [argv.map((element) => element.replaceAll('*', 'x'))] } };
}

/** The host as an exact domain rule, or undefined where the rule syntax would read it as a wildcard (`*.example.org`). */
function exactDomain(host: string): string | undefined {
  const canonical = canonicalHost(host);
  return canonical === undefined || canonical.includes('*') ? undefined : canonical;
}

/** A glob matching exactly this path: specials escaped, relative paths anchored with `./`. */
function exactPathGlob(path: string): string {
  const normal = normalizePath(path);
  const text = normal?.path ?? path;
  const escaped = text.replace(/[*?[\]{}()!+@\\]/g, '\\$&');
  return normal?.absolute === true ? escaped : `./${escaped}`;
}
