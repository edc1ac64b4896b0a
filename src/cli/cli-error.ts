import { ToolgateError, type ToolgateErrorCode } from '../core/errors/toolgate-error.js';

/**
 * A CLI-level failure with its documented exit code:
 * 0 ok, 1 tool failure, 2 usage or config error, 3 denied.
 */
export type CliFailure = 'tool' | 'usage' | 'config' | 'denied';

export const EXIT_CODES: Readonly<Record<CliFailure | 'ok', number>> = Object.freeze({ ok: 0, tool: 1, usage: 2, config: 2, denied: 3 });

const CODE_OF_FAILURE: Readonly<Record<CliFailure, ToolgateErrorCode>> = Object.freeze({
  tool: 'EXECUTION_FAILED',
  usage: 'CONFIGURATION_INVALID',
  config: 'CONFIGURATION_INVALID',
  denied: 'POLICY_DENIED',
});

/**
 * The exit code of any toolgate error, by its code: a refusal is 3, a
 * mistake in what the caller asked for (a name, arguments, a flag, the
 * configuration) is 2, and anything else failed while running: 1.
 */
export function exitCodeOfError(code: ToolgateErrorCode): number {
  switch (code) {
    case 'POLICY_DENIED':
    case 'DENIED_BY_USER':
      return EXIT_CODES.denied;
    case 'UNKNOWN_TOOL':
    case 'ARGS_INVALID':
    case 'CONFIGURATION_INVALID':
      return EXIT_CODES.usage;
    default:
      return EXIT_CODES.tool;
  }
}

export class CliError extends ToolgateError {
  readonly kind: CliFailure;
  constructor(kind: CliFailure, message: string, options?: { cause?: unknown }) {
    super(CODE_OF_FAILURE[kind], message, options);
    this.name = 'CliError';
    this.kind = kind;
  }
  get exitCode(): number {
    return exitCodeOfError(this.code);
  }
}
