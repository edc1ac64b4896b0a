import type { ToolFailure, ToolgateErrorCode } from '../../core/index.js';
import { placeToolResult } from '../../core/index.js';

/**
 * A toolgate failure (a denial, invalid arguments, a failed tool) raised
 * inside a framework that reports tool failures by exception. Its message is
 * the model-facing content, placed as a tool result (bounded, secret-free);
 * the typed error stays on `cause` and the receipt on `outcome`.
 */
export class ToolOutcomeError extends Error {
  readonly code: ToolgateErrorCode;
  readonly outcome: ToolFailure;
  constructor(outcome: ToolFailure) {
    super(placeToolResult(outcome.callId, outcome.content, true).content, { cause: outcome.error });
    this.name = 'ToolOutcomeError';
    this.code = outcome.error.code;
    this.outcome = outcome;
  }

  /** Frameworks render a thrown tool error with `String(error)`; the model should read exactly the placed content. */
  override toString(): string {
    return this.message;
  }
}
