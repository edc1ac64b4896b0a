import picomatch from 'picomatch/posix.js';
import { compileRegexProgram, RegexProgramError } from './compile-regex-program.js';
import { expandBraceRange } from './expand-brace-range.js';
import type { RegexProgram } from './regex-program.js';

/**
 * How picomatch reads a path glob: `dot`, so `*` and `**` match names that
 * begin with a dot, and `posix`, so `[!a]` is every character but `a`, as
 * gitignore, Claude Code and Gemini CLI read it (without it, picomatch reads
 * `[!a]` as `!` or `a`, and a deny of `secrets/[!_]*` left `secrets/prod.key`
 * readable), and `[[:alpha:]]` is a class; a range in braces, `{1..12}`,
 * stands for every value between its ends, as a shell expands it
 * (`expandBraceRange`).
 */
export const PATH_GLOB_OPTIONS = Object.freeze({ dot: true, posix: true, expandRange: expandBraceRange });

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
    source = picomatch.makeRe(glob, PATH_GLOB_OPTIONS).source;
  } catch (error) {
    // A range it cannot read, or one too large (`expandBraceRange`).
    if (error instanceof RegexProgramError) throw error;
    // picomatch refuses a pattern longer than 65,536 characters.
    throw new RegexProgramError('too_large', error instanceof Error ? error.message : String(error));
  }
  return { glob, program: compileRegexProgram(source, nocase ? 'is' : 's', lookaheads) };
}
