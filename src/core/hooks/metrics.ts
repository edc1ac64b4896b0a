import { ToolgateError } from '../errors/toolgate-error.js';
import type { AroundWrapper } from './hook-types.js';

export interface MetricsSample {
  readonly toolName: string;
  readonly agent: string | undefined;
  readonly attempt: number;
  readonly durationMs: number;
  readonly ok: boolean;
  readonly code: string;
}

/** Record the duration and outcome of each attempt of the tool body. A throwing recorder is ignored by design: metrics never fail a call. */
export function metrics(recorder: (sample: MetricsSample) => void): AroundWrapper {
  return (next) => async (execution) => {
    const started = Date.now();
    const record = (ok: boolean, code: string): void => {
      try {
        recorder({ toolName: execution.toolName, agent: execution.agent, attempt: execution.attempt, durationMs: Date.now() - started, ok, code });
      } catch (error) {
        console.warn('toolgate: a metrics recorder threw', error);
      }
    };
    try {
      const value = await next(execution);
      record(true, 'OK');
      return value;
    } catch (error) {
      record(false, ToolgateError.isInstance(error) ? error.code : 'EXECUTION_FAILED');
      throw error;
    }
  };
}
