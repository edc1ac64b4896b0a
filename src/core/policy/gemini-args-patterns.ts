import { compileRegexProgram, RegexProgramError } from './compile-regex-program.js';

/** What of a Gemini CLI rule its argument patterns are built from. */
export interface GeminiArgsSource {
  readonly argsPattern?: string;
  readonly commandPrefix?: readonly string[];
  readonly commandRegex?: string;
}

/**
 * The argument patterns, built as Gemini CLI's `buildArgsPatterns` builds them:
 * one per `commandPrefix` (JSON-encoded, regex-escaped, then a space, a quote
 * or an escaped quote: a literal `*` stays literal), `commandRegex` after
 * `"command":"` exactly as written (a leading `^` then anchors at the start of
 * the JSON, as in Gemini CLI), `argsPattern` as written. Undefined: the rule
 * has no argument condition.
 */
export function geminiArgsPatterns(rule: GeminiArgsSource): readonly string[] | undefined {
  if (rule.commandPrefix !== undefined) return rule.commandPrefix.map((prefix) => `${escapeRegex(`"command":${JSON.stringify(prefix).slice(0, -1)}`)}(?:[\\s"]|\\\\")`);
  if (rule.commandRegex !== undefined) return [`"command":"${rule.commandRegex}`];
  return rule.argsPattern === undefined ? undefined : [rule.argsPattern];
}

/** Gemini CLI's `isSafeRegExp`: valid, at most 2048 characters, no quantified group holding a quantifier. */
export function isSafeRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern);
  } catch {
    return false;
  }
  return pattern.length <= 2048 && !/\([^)]*[*+?{].*\)[*+?{]/.test(pattern);
}

/**
 * Whether toolgate runs the pattern as an automaton, in time proportional to
 * the command (`compile-regex-program.ts`). Gemini CLI's check lets through
 * patterns that backtrack for ever (`(a|a)*X` costs 2^n steps for n `a`s);
 * a back-reference, a lookbehind or a named group has no automaton at all.
 */
export function runsInLinearTime(pattern: string): boolean {
  try {
    compileRegexProgram(pattern, '');
    return true;
  } catch (error) {
    if (error instanceof RegexProgramError) return false;
    throw error;
  }
}

/** Gemini CLI's `escapeRegex`: the characters it escapes, no more. */
function escapeRegex(text: string): string {
  return text.replace(/[-[\]{}()*+?.,\\^$|#\s"]/g, '\\$&');
}
