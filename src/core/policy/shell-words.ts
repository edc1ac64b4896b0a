/** Where a POSIX shell ends a word outside quotes: blanks, and the operators that begin another command, a pipe, a redirection or a subshell. */
const WORD_END = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')', '`']);

/** What a backslash escapes inside double quotes; before anything else it stays a backslash. */
const ESCAPED_IN_DOUBLE_QUOTES = new Set(['$', '`', '"', '\\', '\n']);

/** A variable as a shell spells it: `$NAME` or `${NAME}`, the name in group 1 or 2; sticky, read where the `$` stands. */
const VARIABLE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/y;

/**
 * The words of a command line, as a POSIX shell splits them before it runs
 * one: quotes and backslashes taken off, each variable `variables` names
 * expanded where the shell would expand it (not inside single quotes), and
 * the operators between commands (`&&`, `;`, `|`, a redirection, a
 * subshell's parentheses) ending a word and making none. A variable it does
 * not name stays as spelled, and an expanded value is not split again:
 * what is wanted is the place each word names, and `"$DIR"/x.sh` is one
 * place however the user's shell would split it. A quote left open runs
 * to the end; an empty word (`""`) is left out, as it names nothing.
 */
export function shellWords(command: string, variables: Readonly<Record<string, string>> = {}): string[] {
  const words: string[] = [];
  let word = '';
  let quote: "'" | '"' | undefined;
  const end = (): void => {
    if (word !== '') words.push(word);
    word = '';
  };
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
      continue;
    }
    if (char === '\\') {
      const next = command[index + 1];
      index += 1;
      // A backslash and a newline join the lines; inside double quotes a backslash escapes only a few characters.
      if (next === undefined || next === '\n') continue;
      word += quote === '"' && !ESCAPED_IN_DOUBLE_QUOTES.has(next) ? `\\${next}` : next;
      continue;
    }
    if (char === '$') {
      VARIABLE.lastIndex = index;
      const variable = VARIABLE.exec(command);
      const name = variable?.[1] ?? variable?.[2];
      if (variable !== null && name !== undefined && Object.hasOwn(variables, name)) {
        word += variables[name];
        index += variable[0].length - 1;
        continue;
      }
    }
    if (quote === '"') {
      if (char === '"') quote = undefined;
      else word += char;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (WORD_END.has(char)) end();
    else word += char;
  }
  end();
  return words;
}
