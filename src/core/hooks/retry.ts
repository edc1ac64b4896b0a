import { ToolgateError } from '../errors/toolgate-error.js';
import type { AroundWrapper } from './hook-types.js';

export interface RetryOptions {
  /** Total attempts, including the first. */
  readonly attempts: number;
  /** Delay before attempt n (n ≥ 2), in ms. Default: 100 · 2^(n-2). */
  readonly backoff?: (attempt: number) => number;
}

/**
 * Retry a failed call, but only when it is safe: the error is retryable,
 * the tool is idempotent (declared `idempotent` or read-only), and the
 * caller has not cancelled. A non-idempotent tool is never retried: its side
 * effect may already have landed.
 */
export function retry(options: RetryOptions): AroundWrapper {
  const attempts = Math.max(1, Math.floor(options.attempts));
  const backoff = options.backoff ?? ((attempt: number) => 100 * 2 ** (attempt - 2));
  return (next) => async (execution) => {
    for (let attempt = 1; ; attempt += 1) {
      execution.attempt = attempt;
      try {
        return await next(execution);
      } catch (error) {
        const safe = execution.tool.idempotent && ToolgateError.isInstance(error) && error.retryable && error.code !== 'TOOL_TIMEOUT';
        if (!safe || attempt >= attempts || execution.signal?.aborted === true) throw error;
        await sleep(backoff(attempt + 1), execution.signal);
      }
    }
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
