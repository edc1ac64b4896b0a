import type { ToolDefinition } from '../../core/internal.js';

/**
 * A built-in definition with typed arguments. Built-ins describe their input
 * as plain JSON Schema (the model-visible contract, rendered into the tool
 * catalog); the engine validates against it before `dispatch` runs, so the
 * body may rely on `TArgs`.
 */
export function defineBuiltin<TArgs, TResult>(definition: Omit<ToolDefinition<TArgs, TResult>, 'source'>): ToolDefinition<TArgs, TResult> {
  return Object.freeze({ ...definition, source: 'builtin' as const });
}
