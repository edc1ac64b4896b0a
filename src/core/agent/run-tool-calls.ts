import type { DispatchContext, ToolCall, ToolOutcome } from '../dispatch/dispatch-types.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import type { ToolRegistry } from '../registry/registry-types.js';
import { placeToolResult, type ToolResultPlacement } from '../untrusted/untrusted.js';

export interface RunToolCallsOptions {
  /** How many loop-correctable errors (unknown tool, bad arguments) the step may feed back. Default 3. */
  readonly maxCorrections?: number;
  /** Concurrency limit for a parallel batch. Default 8. */
  readonly concurrency?: number;
  /** Feed recoverable failures (idempotent reads, scope denials) back instead of ending the step. Default true. */
  readonly recoverToolFailures?: boolean;
}

export interface ToolCallResult {
  readonly callId: string;
  readonly toolName: string;
  readonly outcome: ToolOutcome;
  /** Ready to place as the tool-result message for this call. */
  readonly message: ToolResultPlacement;
  readonly isError: boolean;
}

export interface ToolStepResult {
  /** One result per call, in call order — also for denied, skipped and failed calls. */
  readonly results: readonly ToolCallResult[];
  /** The error that ended the step, when one did. */
  readonly fatal: ToolgateError | undefined;
  /** Corrections spent in this step. */
  readonly corrections: number;
  readonly mode: 'parallel' | 'sequential';
}

/**
 * One model step: run the calls it asked for and return a tool result for
 * each, in call order, so the conversation stays valid even when calls are
 * denied. Parallel only when every call says it is concurrency-safe;
 * otherwise in order, and a fatal failure ends the step (later calls get a
 * "not run" result rather than running after a fatal error).
 */
export async function runToolCalls(registry: ToolRegistry, calls: readonly ToolCall[], context: DispatchContext = {}, options: RunToolCallsOptions = {}): Promise<ToolStepResult> {
  const maxCorrections = options.maxCorrections ?? 3;
  const recover = options.recoverToolFailures ?? true;
  const parallel = calls.length > 1 && calls.every((call) => registry.executionMode(call) === 'parallel');
  let corrections = 0;
  let fatal: ToolgateError | undefined;

  const classify = (outcome: ToolOutcome): void => {
    if (outcome.ok || fatal !== undefined) return;
    const error = outcome.error;
    if (error.loopCorrectable) {
      corrections += 1;
      if (corrections > maxCorrections) fatal = error;
    } else if (!(recover && error.recoverable)) {
      fatal = error;
    }
  };

  const outcomes: ToolOutcome[] = new Array<ToolOutcome>(calls.length);
  if (parallel) {
    const limit = Math.max(1, options.concurrency ?? 8);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < calls.length) {
        const index = next;
        next += 1;
        outcomes[index] = await registry.dispatch(calls[index] as ToolCall, context);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
    for (const outcome of outcomes) classify(outcome);
  } else {
    for (const [index, call] of calls.entries()) {
      if (fatal !== undefined) {
        outcomes[index] = await registry.dispatch(call, { ...context, signal: AbortSignal.abort(new Error('not run: an earlier call in this step failed')) });
        continue;
      }
      const outcome = await registry.dispatch(call, context);
      outcomes[index] = outcome;
      classify(outcome);
    }
  }

  const results = outcomes.map((outcome) => ({
    callId: outcome.callId,
    toolName: outcome.toolName,
    outcome,
    message: placeToolResult(outcome.callId, outcome.content, !outcome.ok),
    isError: !outcome.ok,
  }));
  return { results, fatal, corrections, mode: parallel ? 'parallel' : 'sequential' };
}
