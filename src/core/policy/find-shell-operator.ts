/**
 * The first shell operator a command string holds where a shell would act on
 * it, or undefined. toolgate runs one program without a shell, so in a string
 * command `&&`, `||`, `;`, `|`, `&`, `>`, `<`, `$(`, a backtick or a newline
 * would only reach the program as literal bytes: a model that writes them
 * means a second command, a pipe or a redirection that never happens.
 *
 * Read as a POSIX shell reads quoting: inside single quotes nothing is an
 * operator; inside double quotes only `$(` and a backtick still run a
 * command; a backslash outside single quotes makes the next character
 * literal. A quote left open is read to the end as if unquoted, so an
 * unterminated quote cannot hide an operator.
 */
export function findShellOperator(command: string): string | undefined {
  const open = scan(command, true);
  return open.operator ?? (open.unterminated ? scan(command, false).operator : undefined);
}

const SINGLE = new Set(['|', '&', ';', '<', '>', '`', '\n', '\r']);

function scan(command: string, honourQuotes: boolean): { operator: string | undefined; unterminated: boolean } {
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < command.length; index += 1) {
    const char = command[index] as string;
    const next = command[index + 1];
    if (quote === "'") {
      if (char === "'") quote = undefined;
      continue;
    }
    if (char === '\\') {
      index += 1;
      continue;
    }
    if (char === '`') return { operator: '`', unterminated: false };
    if (char === '$' && next === '(') return { operator: '$(', unterminated: false };
    if (quote === '"') {
      if (char === '"') quote = undefined;
      continue;
    }
    if (honourQuotes && (char === "'" || char === '"')) {
      quote = char;
      continue;
    }
    if (SINGLE.has(char)) {
      const pair = `${char}${next ?? ''}`;
      return { operator: pair === '&&' || pair === '||' ? pair : char === '\r' ? '\n' : char, unterminated: false };
    }
  }
  return { operator: undefined, unterminated: quote !== undefined };
}
