import { ToolCancelledError } from '../errors/tool-errors.js';
import { ToolgateError } from '../errors/toolgate-error.js';
import { redactSecrets } from '../policy/redact-secrets.js';
import type { ToolReceipt } from '../receipts/receipt-types.js';
import { CODE_MODE_TOOL_NAME } from '../registry/registry-state.js';
import type { CodeConsoleOutput, CodeRunFailure } from './code-mode-types.js';

/**
 * Why a `run_code` call failed: a runtime's own failure, or `result_budget`,
 * which the engine decides: the nested results would have passed the bytes
 * the script may receive.
 */
export type CodeModeFailure = Exclude<CodeRunFailure, 'aborted'> | 'result_budget';

const FAILURE_TEXT: Record<CodeModeFailure, string> = {
  script_error: 'the script threw',
  time_limit: 'the script ran out of wall time',
  cpu_limit: 'the script ran out of CPU time',
  memory_limit: 'the script exceeded the sandbox memory limit',
  stack_limit: 'the script exceeded the sandbox stack limit',
  result_invalid: 'the script returned a value that is not bounded JSON',
  result_budget: 'the tool results the script asked for exceed its budget',
  runtime_error: 'the sandbox failed',
};

const MAX_DETAIL = 400;

/**
 * A `run_code` script failed or hit a sandbox limit. The model wrote the
 * script, so it can fix it: loop-correctable, not retryable as is. The
 * console output and the receipts of the nested calls made before the
 * failure stay on the error for the caller (never in the message).
 */
export class CodeModeError extends ToolgateError {
  readonly reason: CodeModeFailure;
  readonly console: CodeConsoleOutput;
  readonly calls: readonly ToolReceipt[];
  constructor(reason: CodeModeFailure, detail: string, options: { console: CodeConsoleOutput; calls: readonly ToolReceipt[] }) {
    // The detail is script-authored text (an exception message): redact secret shapes and bound it.
    const safe = redactSecrets(detail).replace(/\s+/g, ' ').trim().slice(0, MAX_DETAIL);
    super(
      reason === 'time_limit' || reason === 'cpu_limit' ? 'TOOL_TIMEOUT' : 'EXECUTION_FAILED',
      `Tool "${CODE_MODE_TOOL_NAME}" failed: ${FAILURE_TEXT[reason]}${safe.length > 0 ? `: ${safe}` : ''}.`,
      { tool: CODE_MODE_TOOL_NAME, loopCorrectable: reason !== 'runtime_error' },
    );
    this.reason = reason;
    this.console = options.console;
    this.calls = options.calls;
  }
}

/**
 * A cancelled `run_code` call: `ABORTED`, like any cancelled call. The
 * nested calls the script made before the cancellation ran or were refused
 * on their own terms, so their receipts and the console stay on the error:
 * a write that ran before the abort is never hidden from the caller.
 */
export class CodeModeCancelledError extends ToolCancelledError {
  readonly console: CodeConsoleOutput;
  readonly calls: readonly ToolReceipt[];
  constructor(options: { console: CodeConsoleOutput; calls: readonly ToolReceipt[] }) {
    super(CODE_MODE_TOOL_NAME, 'after-dispatch');
    this.console = options.console;
    this.calls = options.calls;
  }
}
