import { ToolPolicyError } from '../errors/tool-errors.js';
import type { ResolvedDispatchState } from './dispatch-state.js';

/**
 * Stage 11: the caller's synchronous, trusted admission immediately before
 * the host is touched (for example a live durability latch). A refusal
 * proves nothing started; the caller of this stage discards any claim.
 */
export function admitBeforeDispatch(state: ResolvedDispatchState): ToolPolicyError | undefined {
  const hook = state.context.beforeDispatch;
  const tool = state.tool;
  if (hook === undefined) return undefined;
  try {
    const result: unknown = hook(tool.key);
    if (result instanceof Promise) {
      // Admission must be synchronous; an async hook cannot be honoured, so it refuses.
      result.catch(() => undefined);
      return new ToolPolicyError(tool.key, 'admission_refused', { detail: 'was refused: beforeDispatch must be synchronous' });
    }
  } catch (error) {
    return new ToolPolicyError(tool.key, 'admission_refused', { detail: 'was refused at admission before dispatch', cause: error });
  }
  return undefined;
}
