import { ConfigurationError, ToolTimeoutError } from '../errors/tool-errors.js';
import type { AroundWrapper } from './hook-types.js';

/**
 * Abort the call's signal after `ms` and report `TOOL_TIMEOUT`. Quiescent:
 * it waits for the body to settle after the abort (never races away from
 * started work), and the timeout outranks whatever the body then returns.
 */
export function timeout(ms: number): AroundWrapper {
  if (!(Number.isFinite(ms) && ms >= 1)) throw new ConfigurationError('timeout(ms)', 'needs a positive number of milliseconds');
  return (next) => async (execution) => {
    const controller = new AbortController();
    const outer = execution.signal;
    execution.signal = outer === undefined ? controller.signal : AbortSignal.any([outer, controller.signal]);
    let fired = false;
    const timer = setTimeout(() => {
      fired = true;
      controller.abort(new ToolTimeoutError(execution.toolName, ms));
    }, ms);
    try {
      const value = await next(execution);
      if (fired) throw new ToolTimeoutError(execution.toolName, ms);
      return value;
    } catch (error) {
      if (fired) throw new ToolTimeoutError(execution.toolName, ms);
      throw error;
    } finally {
      clearTimeout(timer);
      execution.signal = outer;
    }
  };
}
