import type { ToolFailure } from '../../core/internal.js';
import { placeToolResult, ToolgateError } from '../../core/internal.js';

/**
 * A toolgate failure (a denial, invalid arguments, a failed tool) raised
 * inside a framework that reports tool failures by exception. Its message is
 * the model-facing content, placed as a tool result (bounded, secret-free);
 * it carries the failure's code and flags, the typed error stays on `cause`
 * and the receipt on `outcome`.
 */
export class ToolOutcomeError extends ToolgateError {
  readonly outcome: ToolFailure;
  constructor(outcome: ToolFailure) {
    const { error } = outcome;
    super(error.code, placeToolResult(outcome.callId, outcome.content, true).content, {
      cause: error,
      tool: error.tool,
      retryable: error.retryable,
      recoverable: error.recoverable,
      loopCorrectable: error.loopCorrectable,
    });
    this.outcome = outcome;
  }

  /** Frameworks render a thrown tool error with `String(error)`; the model should read exactly the placed content. */
  override toString(): string {
    return this.message;
  }
}
