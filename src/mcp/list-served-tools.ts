import type { DispatchContext, McpTool, PolicyToolView, ToolInfo, ToolRegistry } from '../core/index.js';

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
  const granted = context.grantedTools === undefined ? undefined : new Set(context.grantedTools);
  const shown = new Set<string>();
  const keyByWireName = new Map<string, string>();
  for (const info of registry.list()) {
    if (granted !== undefined && !granted.has(info.name) && !granted.has(info.key)) continue;
    if (registry.policy.decideIdentity({ tool: policyView(registry, info), agent: context.agent ?? registry.agent }).kind === 'deny') continue;
    const wire = wireName(info);
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

/** The projection's wire name: provider name rules forbid `@`, so a pinned version travels as `name__v1_2_0`. */
function wireName(info: ToolInfo): string {
  return info.version === undefined ? info.name : `${info.name}__v${info.version.replace(/[^A-Za-z0-9]/g, '_')}`;
}

/** What the policy sees of a tool, from its public listing (the same fields the pipeline passes at stage 4). */
function policyView(registry: ToolRegistry, info: ToolInfo): PolicyToolView {
  const definition = registry.get(info.key);
  const policy = definition?.policy ?? {};
  return {
    name: info.name,
    version: info.version,
    source: info.source,
    effect: info.effect,
    risk: info.risk,
    policy: {
      fsScoped: policy.fsScoped ?? false,
      fsWrite: policy.fsWrite ?? false,
      spawnsProcess: policy.spawnsProcess ?? false,
      egress: policy.egress,
      os: policy.os ?? false,
      requiresGate: policy.requiresGate ?? false,
    },
    permissions: definition?.permissions ?? [],
    readOnly: info.facts.readOnly ?? (!info.governed && info.effect === 'read'),
  };
}
