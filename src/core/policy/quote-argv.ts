/**
 * An argv as a POSIX shell command line that runs exactly it: an element of
 * plain characters stays bare, any other is single-quoted (`'` as `'\''`).
 * Imported rules written for a shell (Claude Code's `Bash(…)`, Gemini CLI's
 * `commandPrefix`) are matched against this line, so an element holding a
 * space, a quote or an operator reads as one word, as the peer would read it.
 */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map(quoteWord).join(' ');
}

function quoteWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
