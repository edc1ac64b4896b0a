import type { CompiledTool } from '../tools/compile-tool.js';
import type { OpenAIResponsesTool } from './projection-types.js';
import { toOpenAIStrictSchema } from './to-openai-strict-schema.js';

/** Responses API: a flat `{ type: 'function', name, description, parameters, strict }`. */
export function projectOpenAIResponses(tool: CompiledTool, name: string): OpenAIResponsesTool {
  const { strict, schema } = toOpenAIStrictSchema(tool.modelSchema);
  return { type: 'function', name, description: tool.description, parameters: schema, strict };
}
