import type { JsonSchema, ToolRegistry } from '../../core/internal.js';
import { wireToolName } from '../../core/internal.js';

/** One tool as a framework offers it to a model. */
export interface FrameworkTool {
  /** The provider-safe name the model calls (a pinned version travels as `name__v1_2_0`). */
  readonly wireName: string;
  /** The registry key a dispatch names (`name` or `name@version`). */
  readonly key: string;
  readonly description: string;
  /** Model-visible input schema (configuration-only parameters removed). */
  readonly inputSchema: JsonSchema;
}

/**
 * The tools a registry scope offers, as the provider projection names them.
 * Names, schemas and descriptions come from the registry's own projection,
 * so a framework sees exactly what any other provider would.
 */
export function frameworkTools(registry: ToolRegistry): readonly FrameworkTool[] {
  const keyByWire = new Map<string, string>();
  // The registry's own wire-name rule, so the key a framework dispatches is the tool the projection offered under that name.
  for (const info of registry.list()) keyByWire.set(wireToolName(info.name, info.version), info.key);
  return registry.project('openai-responses').map((tool) => ({
    wireName: tool.name,
    key: keyByWire.get(tool.name) ?? tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
  }));
}
