import type { ToolgateError } from './toolgate-error.js';

/**
 * `JSON.parse(text)`, or the caller's typed error when the text is not JSON.
 * The parser's own `SyntaxError` is not passed on: its message quotes the
 * text, which may be a secret-bearing file or argument.
 */
export function parseJsonOrThrow(text: string, failure: () => ToolgateError): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw failure();
  }
}
