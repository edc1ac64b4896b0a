import type { CompiledTool } from '../tools/compile-tool.js';
import type { GeminiFunctionDeclaration } from './projection-types.js';
import { toGeminiSchema } from './to-gemini-schema.js';

/** Gemini: a function declaration whose `parameters` are in its OpenAPI subset. */
export function projectGemini(tool: CompiledTool, name: string): GeminiFunctionDeclaration {
  const parameters = toGeminiSchema(tool.modelSchema);
  return parameters === undefined ? { name, description: tool.description } : { name, description: tool.description, parameters };
}
