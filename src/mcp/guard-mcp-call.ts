import type { ToolGuard } from '../core/internal.js';
import { upstreamGovernanceOf } from './build-upstream-tool.js';
import type { UpstreamServer } from './create-mcp-capability.js';
import type { UpstreamEntry } from './discover-server-tools.js';

/** Whether an upstream tool's definition points at paths, a URL or a command in its arguments. */
export function hasArgumentTargets(entry: UpstreamEntry): boolean {
  const targets = upstreamGovernanceOf(entry.definition)?.targets;
  return targets !== undefined && Object.keys(targets).length > 0;
}

/** Why a call to an upstream tool with argument targets is refused unless it comes through that tool's own name. */
export function targetsJudgedByName(entry: UpstreamEntry): string {
  return `the policy judges its arguments (paths, URL, command) only when it is called as ${entry.name}`;
}

/**
 * A guard for a registry's `hooks.guards`: a call through a tool that
 * declares it reaches upstream MCP tools by name (`delegatesTo: 'mcp'`, as
 * `mcp_call` does, under whatever name it is registered) to an offered tool
 * that has argument targets is refused before it reaches an approver. Only
 * the tool's own definition says where its paths and URL are, so the policy
 * judged none of them for the delegating call; a person would be asked about
 * a call the floor and the rules never saw. The capability refuses it as
 * well, for registries without this guard.
 */
export function createMcpCallGuard(servers: ReadonlyMap<string, UpstreamServer>): ToolGuard {
  return (execution) => {
    if (execution.delegatesTo !== 'mcp') return undefined;
    const { server, tool } = (execution.arguments ?? {}) as { server?: unknown; tool?: unknown };
    if (typeof server !== 'string' || typeof tool !== 'string') return undefined;
    const entry = servers.get(server)?.entries.get(tool);
    return entry !== undefined && hasArgumentTargets(entry) ? targetsJudgedByName(entry) : undefined;
  };
}
