import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
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

/**
 * The most text one `tools/list` page holds (as JSON, in UTF-16 code units),
 * a tool more when one alone is larger. Every upstream's listing is bounded,
 * but several together answered as one message could pass what a client
 * reads in one (the SDK's client closes past 10 MiB).
 */
export const MAX_PAGE_TEXT = 1024 * 1024;

const pagesOf = new WeakMap<ServedTools, readonly (readonly McpTool[])[]>();

/**
 * One page of `served` for `tools/list`: the cursor is the next page's
 * number. Pages are cut once per listing snapshot. A cursor this listing
 * does not have is `InvalidParams`.
 */
export function servedToolsPage(served: ServedTools, cursor: string | undefined): { tools: McpTool[]; nextCursor?: string } {
  let pages = pagesOf.get(served);
  if (pages === undefined) pagesOf.set(served, (pages = cutPages(served.tools)));
  const index = cursor === undefined ? 0 : /^(?:0|[1-9][0-9]{0,8})$/.test(cursor) ? Number(cursor) : -1;
  const page = pages[index];
  if (page === undefined) {
    if (index === 0) return { tools: [] };
    throw new McpError(ErrorCode.InvalidParams, 'Invalid tools/list request: the cursor names no page of this listing');
  }
  return index + 1 < pages.length ? { tools: [...page], nextCursor: String(index + 1) } : { tools: [...page] };
}

function cutPages(tools: readonly McpTool[]): McpTool[][] {
  const pages: McpTool[][] = [];
  let page: McpTool[] = [];
  let text = 0;
  for (const tool of tools) {
    const size = JSON.stringify(tool).length;
    if (page.length > 0 && text + size > MAX_PAGE_TEXT) {
      pages.push(page);
      page = [];
      text = 0;
    }
    page.push(tool);
    text += size;
  }
  if (page.length > 0) pages.push(page);
  return pages;
}
