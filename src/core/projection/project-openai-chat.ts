import type { CompiledTool } from '../tools/compile-tool.js';
import type { OpenAIChatTool } from './projection-types.js';
import { toOpenAIStrictSchema } from './to-openai-strict-schema.js';

/** Chat Completions: `{ type: 'function', function: { name, description, parameters, strict } }`. */
export function projectOpenAIChat(tool: CompiledTool, name: string): OpenAIChatTool {
  const { strict, schema } = toOpenAIStrictSchema(tool.modelSchema);
  return { type: 'function', function: { name, description: tool.description, parameters: schema, strict } };
}
