/**
 * Every error toolgate produces. A string `code` is the discriminant callers
 * switch on; the flags say what a caller may do next:
 *
 * - `retryable`: a fresh attempt may succeed (a raw host failure).
 * - `recoverable`: safe to feed back to the model within the turn so it can
 *   adapt (an idempotent read that failed, a pure scope denial). Stricter than
 *   `retryable`.
 * - `loopCorrectable`: the model made a mistake it can fix (an unknown name,
 *   bad arguments); the agent loop returns it as an `isError` tool result
 *   within its correction budget.
 *
 * Messages are secret-free by construction: they name a tool and a field,
 * never an argument value, a resolved path, a secret or a host stack. The
 * original failure, when there is one, is kept on `cause` for logs only.
 */
export type ToolgateErrorCode =
  | 'UNKNOWN_TOOL'
  | 'DUPLICATE_TOOL'
  | 'TOOL_DEFINITION_INVALID'
  | 'POLICY_DENIED'
  | 'DENIED_BY_USER'
  | 'ARGS_INVALID'
  | 'TOOL_UNAVAILABLE'
  | 'EXECUTION_FAILED'
  | 'TOOL_TIMEOUT'
  | 'ABORTED_BEFORE_DISPATCH'
  | 'ABORTED'
  | 'OUTPUT_INVALID'
  | 'REPLAY_MISS'
  | 'CONFIGURATION_INVALID';

const brand = Symbol.for('toolgate.error');

export interface ToolgateErrorOptions {
  /** The tool the error is about, when there is one. */
  readonly tool?: string | undefined;
  /** The original failure, for logs. Never rendered into `message`. */
  readonly cause?: unknown;
  readonly retryable?: boolean;
  readonly recoverable?: boolean;
  readonly loopCorrectable?: boolean;
}

export class ToolgateError extends Error {
  readonly code: ToolgateErrorCode;
  readonly tool: string | undefined;
  readonly retryable: boolean;
  readonly recoverable: boolean;
  readonly loopCorrectable: boolean;
  constructor(code: ToolgateErrorCode, message: string, options: ToolgateErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.tool = options.tool;
    this.retryable = options.retryable ?? false;
    this.recoverable = options.recoverable ?? false;
    this.loopCorrectable = options.loopCorrectable ?? false;
    Object.defineProperty(this, brand, { value: true });
  }

  /** True for any toolgate error, also across duplicated copies of the package. */
  static isInstance(value: unknown): value is ToolgateError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }

  /** A plain, secret-free projection for events, receipts and the wire. */
  toJSON(): { name: string; code: ToolgateErrorCode; message: string; tool?: string } {
    return this.tool === undefined
      ? { name: this.name, code: this.code, message: this.message }
      : { name: this.name, code: this.code, message: this.message, tool: this.tool };
  }
}
