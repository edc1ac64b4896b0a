import { wireToolName, type DispatchContext, type McpTool, type ToolRegistry } from '../core/internal.js';

export interface ServedTools {
  /** What `tools/list` answers. Frozen. */
  readonly tools: readonly McpTool[];
  /** Wire name (`name` or `name__v1_2_0`) → the registry key a call names. */
  readonly keyByWireName: ReadonlyMap<string, string>;
}

const cache = new WeakMap<ToolRegistry, WeakMap<DispatchContext, ServedTools>>();

/**
 * The tools a client may see: the registry's cached MCP projection, minus
 * what the caller is not granted and what the policy denies on identity
 * alone (a deny rule hides a tool). Computed once per registry snapshot and
 * context, so `tools/list` costs a map lookup after the first.
 */
export function listServedTools(registry: ToolRegistry, context: DispatchContext): ServedTools {
  let byContext = cache.get(registry);
  if (byContext === undefined) cache.set(registry, (byContext = new WeakMap()));
  const cached = byContext.get(context);
  if (cached !== undefined) return cached;
  // As in the pipeline's grant check: absent grants mean nothing is granted, so nothing is listed.
  const granted = new Set(context.grantedTools ?? []);
  const shown = new Set<string>();
  const keyByWireName = new Map<string, string>();
  for (const info of registry.list()) {
    if (!granted.has(info.name) && !granted.has(info.key)) continue;
    if (registry.policy.decideIdentity({ tool: info.policyView, agent: context.agent ?? registry.agent }).kind === 'deny') continue;
    const wire = wireToolName(info.name, info.version);
    shown.add(wire);
    keyByWireName.set(wire, info.key);
  }
  const served: ServedTools = Object.freeze({
    tools: Object.freeze(registry.project('mcp').filter((tool) => shown.has(tool.name))),
    keyByWireName,
  });
  byContext.set(context, served);
  return served;
}
