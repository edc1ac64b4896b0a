import { ConfigurationError } from '../errors/tool-errors.js';
import type { AroundWrapper, DispatchNext, ToolDispatchExecution } from './hook-types.js';

/**
 * Compose `(next) => next` wrappers; the first entry is the outermost. Each
 * wrapper must return a function, and a `next` may be called again only
 * after the previous call settled (a retry), never concurrently.
 */
export function composeAround(wrappers: readonly AroundWrapper[], body: DispatchNext): DispatchNext {
  let next = body;
  for (let index = wrappers.length - 1; index >= 0; index -= 1) {
    const wrapper = wrappers[index];
    if (wrapper === undefined) continue;
    const inner = guardNext(next);
    const wrapped = wrapper(inner);
    if (typeof wrapped !== 'function') throw new ConfigurationError(`hooks.around[${index}]`, 'must return a function');
    next = wrapped;
  }
  return next;
}

function guardNext(next: DispatchNext): DispatchNext {
  let running = false;
  return async (execution: ToolDispatchExecution) => {
    if (running) throw new ConfigurationError('hooks.around', 'called next() again while a call was still running');
    running = true;
    try {
      return await next(execution);
    } finally {
      running = false;
    }
  };
}
