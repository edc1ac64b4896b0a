import type { CompiledTool } from '../tools/compile-tool.js';
import { objectRootSchema } from './object-root-schema.js';
import type { AnthropicTool } from './projection-types.js';

/**
 * Anthropic Messages: `input_schema` must be an object schema; the rest of
 * JSON Schema (references included) is accepted as it is.
 */
export function projectAnthropic(tool: CompiledTool, name: string): AnthropicTool {
  return { name, description: tool.description, input_schema: objectRootSchema(tool.modelSchema) };
}
