import { readPath } from './assemble-arguments.js';
import type { DispatchState, StageResult } from './dispatch-state.js';

/**
 * Stage 15: `outputMapping` on the FULL result, so workflow state holds the
 * real value and never the bounded preview. Each entry is state key →
 * dotted path into the result (`'.'` for the whole result).
 */
export function mapOutput(state: DispatchState, result: StageResult): void {
  const mapping = state.context.config?.outputMapping;
  if (mapping === undefined || !result.ok) return;
  const mapped: Record<string, unknown> = {};
  for (const [key, path] of Object.entries(mapping)) {
    Object.defineProperty(mapped, key, { value: path === '.' ? result.value : readPath(result.value, path), enumerable: true });
  }
  state.mapped = mapped;
}
