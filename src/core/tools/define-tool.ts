import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { JsonSchema, ToolDefinition } from './tool-types.js';

type InferArgs<TInput> = TInput extends StandardSchemaV1<unknown, infer TOutput> ? TOutput : Record<string, unknown>;

/**
 * Identity helper for inference: returns its argument, with the body's
 * `args` typed from the `input` schema. All checking happens once, when a
 * registry is built (`createToolRegistry`).
 */
export function defineTool<TInput extends StandardSchemaV1 | JsonSchema, TResult>(
  definition: Omit<ToolDefinition<InferArgs<TInput>, TResult>, 'input'> & { readonly input: TInput },
): ToolDefinition<InferArgs<TInput>, TResult> {
  return definition as ToolDefinition<InferArgs<TInput>, TResult>;
}
