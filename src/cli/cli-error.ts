/**
 * A CLI-level failure with its documented exit code:
 * 0 ok, 1 tool failure, 2 usage or config error, 3 denied.
 */
export type CliFailure = 'tool' | 'usage' | 'config' | 'denied';

export const EXIT_CODES: Readonly<Record<CliFailure | 'ok', number>> = Object.freeze({ ok: 0, tool: 1, usage: 2, config: 2, denied: 3 });

export class CliError extends Error {
  readonly kind: CliFailure;
  constructor(kind: CliFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.kind = kind;
  }
  get exitCode(): number {
    return EXIT_CODES[this.kind];
  }
}
