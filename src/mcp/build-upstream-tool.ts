import { requireCapability, type AnyToolDefinition, type JsonSchema, type ToolFacts } from '../core/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './mcp-types.js';
import { mapCallToolResult } from './map-call-tool-result.js';

export interface BuildUpstreamToolOptions {
  readonly server: McpServerConfig;
  readonly tool: Tool;
  /** The toolgate name (`mcp_{server}_{tool}`). */
  readonly name: string;
  /** The description after the hidden-character scan. */
  readonly description: string;
}

/**
 * A discovered upstream tool as a toolgate definition. The body reaches the
 * upstream only through `host.mcp` (absent ⇒ `ToolUnavailableError`), with
 * the call's signal and progress sink, so the capability can enforce pins
 * and every host sees one path for MCP traffic.
 */
export function buildUpstreamTool(options: BuildUpstreamToolOptions): AnyToolDefinition {
  const { server, tool, name } = options;
  const facts = toFacts(tool.annotations, server.trusted === true);
  const readOnly = facts.readOnly === true;
  const description = options.description.trim().length > 0 ? options.description : `Tool "${tool.name}" of MCP server "${server.name}".`;
  return Object.freeze({
    name,
    description,
    input: tool.inputSchema as JsonSchema,
    ...(tool.outputSchema === undefined ? {} : { output: tool.outputSchema as JsonSchema }),
    facts,
    source: 'mcp',
    // Without trusted facts an upstream tool may do anything: external effect, medium risk.
    effect: readOnly ? 'read' : facts.destructive === true ? 'write' : 'external',
    risk: readOnly ? 'low' : facts.destructive === true ? 'high' : 'medium',
    ...(server.governed === true ? { policy: { egress: 'mcp' as const } } : {}),
    ...(server.schemaProfile === undefined ? {} : { schemaProfile: server.schemaProfile }),
    policyTarget: () => ({ server: server.name }),
    ...(readOnly ? { isConcurrencySafe: () => true } : {}),
    async dispatch(args: Record<string, unknown>, host, context) {
      const mcp = requireCapability(host, 'mcp', name);
      const onProgress = context.hostCallOptions?.onProgress;
      const result = await mcp.call(
        { server: server.name, tool: tool.name, arguments: args, ...(onProgress === undefined ? {} : { onProgress }) },
        context.signal,
        context.hostCallOptions,
      );
      return mapCallToolResult(result as Parameters<typeof mapCallToolResult>[0], host.mediaStore);
    },
  } satisfies AnyToolDefinition);
}

/**
 * Annotations are the upstream's claims. From a trusted server they are
 * facts. From any other server only the cautious ones count (destructive,
 * open-world): a claim of being read-only or idempotent would loosen the
 * policy, so it is dropped.
 */
function toFacts(annotations: Tool['annotations'], trusted: boolean): ToolFacts {
  if (annotations === undefined) return Object.freeze({});
  const facts: { -readonly [K in keyof ToolFacts]: ToolFacts[K] } = {};
  if (trusted) {
    if (typeof annotations.readOnlyHint === 'boolean') facts.readOnly = annotations.readOnlyHint;
    if (typeof annotations.idempotentHint === 'boolean') facts.idempotent = annotations.idempotentHint;
    if (typeof annotations.destructiveHint === 'boolean') facts.destructive = annotations.destructiveHint;
    if (typeof annotations.openWorldHint === 'boolean') facts.openWorld = annotations.openWorldHint;
  } else {
    if (annotations.destructiveHint === true) facts.destructive = true;
    if (annotations.openWorldHint === true) facts.openWorld = true;
  }
  return Object.freeze(facts);
}
