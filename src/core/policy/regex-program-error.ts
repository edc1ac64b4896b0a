/** Why a regular expression is not compiled: syntax outside what globs produce (a back-reference, a lookbehind), or too many states. */
export class RegexProgramError extends Error {
  readonly code: 'unsupported_syntax' | 'too_large';
  constructor(code: 'unsupported_syntax' | 'too_large', message: string) {
    super(message);
    this.name = 'RegexProgramError';
    this.code = code;
  }
}
