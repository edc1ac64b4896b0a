import type { CompiledTool } from '../tools/compile-tool.js';
import { objectRootSchema } from './object-root-schema.js';
import type { McpTool, McpToolAnnotations, ObjectJsonSchema } from './projection-types.js';

/**
 * MCP `tools/list`: `inputSchema`, `outputSchema` when the output is an
 * object (structured content must be one), and annotations from `facts`.
 * Facts are hints for clients; they never decide what may run.
 */
export function projectMcp(tool: CompiledTool, name: string): McpTool {
  const facts = tool.definition.facts ?? {};
  const annotations: McpToolAnnotations = {
    ...(facts.readOnly === undefined ? {} : { readOnlyHint: facts.readOnly }),
    ...(facts.destructive === undefined ? {} : { destructiveHint: facts.destructive }),
    ...(facts.idempotent === undefined ? {} : { idempotentHint: facts.idempotent }),
    ...(facts.openWorld === undefined ? {} : { openWorldHint: facts.openWorld }),
  };
  const output = tool.outputSchema;
  return {
    name,
    description: tool.description,
    inputSchema: objectRootSchema(tool.modelSchema),
    ...(output?.type === 'object' ? { outputSchema: output as ObjectJsonSchema } : {}),
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
}
