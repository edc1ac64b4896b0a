import type { CompiledTool } from '../tools/compile-tool.js';
import type { JsonSchema } from '../tools/tool-types.js';
import type { McpTool, ProjectOptions, ProviderName, ProviderToolMap, ProviderTools } from './projection-types.js';

/** Project compiled tools to one provider's wire shape. Callers cache the result per snapshot. */
export function projectTools<TProvider extends ProviderName>(provider: TProvider, tools: readonly CompiledTool[], options: ProjectOptions = {}): ProviderTools<TProvider> {
  const offered = orderTools(
    options.tier === 'read-only' ? tools.filter((tool) => !writes(tool)) : tools,
    options.order,
  );
  return Object.freeze(offered.map((tool) => Object.freeze(projectOne(provider, tool)))) as ProviderTools<TProvider>;
}

/** A tool whose policy class writes: filesystem writes, processes, egress, OS actions. */
export function writes(tool: CompiledTool): boolean {
  const policy = tool.policyView.policy;
  return policy.fsWrite || policy.spawnsProcess || policy.egress !== undefined || policy.os || tool.policyView.effect !== 'read';
}

function orderTools(tools: readonly CompiledTool[], order: readonly string[] | undefined): readonly CompiledTool[] {
  const byName = [...tools].sort((left, right) => (left.key < right.key ? -1 : left.key > right.key ? 1 : 0));
  if (order === undefined || order.length === 0) return byName;
  const rank = new Map(order.map((name, index) => [name, index]));
  return byName.sort((left, right) => (rank.get(left.key) ?? rank.get(left.name) ?? Infinity) - (rank.get(right.key) ?? rank.get(right.name) ?? Infinity));
}

function wireName(tool: CompiledTool): string {
  // Provider name rules forbid `@` and `.`; a pinned version travels as `name__v1_2_0`.
  return tool.version === undefined ? tool.name : `${tool.name}__v${tool.version.replace(/[^A-Za-z0-9]/g, '_')}`;
}

function projectOne<TProvider extends ProviderName>(provider: TProvider, tool: CompiledTool): ProviderToolMap[TProvider] {
  const name = wireName(tool);
  const parameters = tool.modelSchema;
  switch (provider) {
    case 'openai-chat':
      return { type: 'function', function: { name, description: tool.description, parameters, strict: false } } as ProviderToolMap[TProvider];
    case 'openai-responses':
      return { type: 'function', name, description: tool.description, parameters, strict: false } as ProviderToolMap[TProvider];
    case 'anthropic':
      return { name, description: tool.description, input_schema: objectSchema(parameters) } as ProviderToolMap[TProvider];
    case 'gemini':
      return { name, description: tool.description, parameters } as ProviderToolMap[TProvider];
    case 'mcp':
      return projectMcp(tool, name) as ProviderToolMap[TProvider];
    default:
      throw new TypeError(`Unknown provider "${String(provider)}".`);
  }
}

function objectSchema(schema: JsonSchema): JsonSchema & { readonly type: 'object' } {
  return (schema.type === 'object' ? schema : { ...schema, type: 'object' }) as JsonSchema & { readonly type: 'object' };
}

function projectMcp(tool: CompiledTool, name: string): McpTool {
  const facts = tool.definition.facts ?? {};
  const annotations = {
    ...(facts.readOnly === undefined ? {} : { readOnlyHint: facts.readOnly }),
    ...(facts.destructive === undefined ? {} : { destructiveHint: facts.destructive }),
    ...(facts.idempotent === undefined ? {} : { idempotentHint: facts.idempotent }),
    ...(facts.openWorld === undefined ? {} : { openWorldHint: facts.openWorld }),
  };
  const output = tool.outputSchema;
  return {
    name,
    description: tool.description,
    inputSchema: objectSchema(tool.modelSchema),
    ...(output !== undefined && output.type === 'object' ? { outputSchema: output as JsonSchema & { readonly type: 'object' } } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
}
