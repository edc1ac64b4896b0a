import picomatch from 'picomatch/posix.js';
import { compileRegexProgram, RegexProgramError } from './compile-regex-program.js';
import { braceRangeReader } from './expand-brace-range.js';
import type { RegexProgram } from './regex-program.js';

/**
 * How picomatch reads a path glob: `dot`, so `*` and `**` match names that
 * begin with a dot, and `posix`, so `[!a]` is every character but `a`, as
 * gitignore, Claude Code and Gemini CLI read it (without it, picomatch reads
 * `[!a]` as `!` or `a`, and a deny of `secrets/[!_]*` left `secrets/prod.key`
 * readable), and `[[:alpha:]]` is a class; a range in braces, `{1..12}`,
 * stands for every value between its ends, as a shell expands it
 * (`braceRangeReader`, one for each glob: its ranges share one budget).
 * `debug`, so a reading that is no regular expression throws: without it
 * picomatch answers one that matches nothing, and a deny of `*.{pem,key`
 * (a brace left open), `.env\` (a trailing backslash) or
 * `{a,{b,c}1..3}` loaded and denied nothing.
 */
export function pathGlobOptions(glob: string): picomatch.PicomatchOptions {
  return { dot: true, posix: true, debug: true, expandRange: braceRangeReader(glob) };
}

/** A path glob as the automaton of picomatch's reading of it (`dot: true`), and whether it folds case. */
export interface PathGlobProgram {
  readonly glob: string;
  readonly program: RegexProgram;
}

/**
 * Compile a glob as picomatch reads it with `dot: true` (`*`, `**`, `?`,
 * classes and POSIX classes, escapes, braces and ranges, extended globs,
 * a leading `!`), to an automaton run over every live state at once: what
 * a path costs is bounded by its length times the pattern's, whatever the
 * path holds. `s`: a `**` crosses a line break inside a folder name;
 * `nocase`: a deny or ask catches case variants. Throws `RegexProgramError`
 * for a glob whose reading needs more than `MAX_REGEX_STATES` states.
 */
export function compilePathGlob(glob: string, nocase: boolean, lookaheads?: Map<string, RegexProgram>): PathGlobProgram {
  let source: string;
  try {
    source = picomatch.makeRe(glob, pathGlobOptions(glob)).source;
  } catch (error) {
    // A range it cannot read, or ranges too large (`braceRangeReader`).
    if (error instanceof RegexProgramError) throw error;
    // picomatch refuses a pattern longer than 65,536 characters; any other error is a reading that is no expression.
    const message = error instanceof Error ? error.message : String(error);
    throw new RegexProgramError(/exceeds maximum allowed length/.test(message) ? 'too_large' : 'unsupported_syntax', message);
  }
  return { glob, program: compileRegexProgram(source, nocase ? 'is' : 's', lookaheads) };
}
