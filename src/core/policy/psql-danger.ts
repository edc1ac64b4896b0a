import { readGetopt, withArity, type GetoptGrammar } from './read-getopt.js';

/**
 * psql runs a shell command with the meta-commands `\!`, `\o |cmd`,
 * `\g |cmd`, `\copy … program`, `\setenv` and a backquoted argument
 * (`` \echo `cmd` ``), writes files with `\o`, `\g`, `\w`, `\s`,
 * `\lo_export`, `-o` and `-L`, reads scripts with `\i`/`\ir`/`\include`
 * and `-f`, and starts an editor with `\e`. A `-c` string that starts with
 * a backslash is a line of meta-commands, each starting at a backslash and
 * named up to a blank or the next backslash: only meta-commands that
 * display (`\d…`, `\l`, `\x`, `\pset`, `\conninfo`, …) are allowed, and no
 * backquote. A `-c` string of SQL runs on the server, where `COPY …
 * PROGRAM` runs a command too: refused. Options are read as psql's
 * getopt_long reads them; one that cannot be read is refused. `-v`
 * naming a prompt or the history file is refused (a prompt runs
 * backquoted commands), and so is a connection string naming
 * `sslkeylogfile` (a file written). Returns the refused form, or undefined.
 */
export function psqlDanger(args: readonly string[]): string | undefined {
  if (args.some((arg) => /sslkeylogfile/i.test(arg))) return 'psql sslkeylogfile';
  const items = readGetopt(args, PSQL_GRAMMAR);
  if (items === undefined) return 'psql option that cannot be checked';
  for (const item of items) {
    if ('operand' in item) {
      if (item.operand.trimStart().startsWith('\\')) return 'psql meta-command outside -c';
    } else if (REFUSED_OPTIONS.has(item.option)) {
      return 'psql -f/-o/-L, --file/--output/--log-file';
    } else if (item.option === 'v' || item.option === 'set' || item.option === 'variable') {
      if (/^\s*(?:prompt|histfile)/i.test(item.value ?? '')) return 'psql -v PROMPT*/HISTFILE';
    } else if ((item.option === 'c' || item.option === 'command') && commandRuns(item.value ?? '')) {
      return 'psql \\!/\\o/\\g/\\w/\\copy/\\i/\\e/\\set, a backquote, COPY … PROGRAM, or a meta-command that cannot be checked';
    }
  }
  return undefined;
}

/** Whether a `-c` string holds a meta-command that is not display-only, a backquote, or SQL naming COPY and PROGRAM. */
function commandRuns(command: string): boolean {
  if (/\bcopy\b/i.test(command) && /\bprogram\b/i.test(command)) return true;
  // psql reads meta-commands only in a string that starts with one; any backslash is judged, which can only refuse more.
  if (!command.includes('\\')) return false;
  if (command.includes('`')) return true;
  // `\\` separates meta-commands from SQL that follows; each other backslash starts a meta-command.
  const names = command.split('\\').slice(1).map((part) => /^[^\s]*/.exec(part)?.[0] ?? '');
  return names.some((name) => name !== '' && !isDisplayOnly(name));
}

const DISPLAY_META_COMMANDS: ReadonlySet<string> = new Set(['l', 'l+', 'list', 'list+', 'conninfo', 'copyright', 'x', 'a', 't', 'H', 'pset', 'timing', 'encoding', 'q', 'quit', '?', 'h', 'help', 'z', 'errverbose', 'sf', 'sf+', 'sv', 'sv+', 'echo']);

/** `\d` and its describe family (`\dt+`, `\dfS`, `\dconfig`), or one of the display commands. */
function isDisplayOnly(name: string): boolean {
  return DISPLAY_META_COMMANDS.has(name) || /^d[A-Za-z]*[S+x]*$/.test(name);
}

// psql's own getopt_long grammar (`aAbc:d:eEf:F:h:HlL:no:p:P:qR:sStT:U:v:VwWxXz?01`).
const PSQL_GRAMMAR: GetoptGrammar = {
  short: { ...withArity('aAbeEHlnqsStVwWxXz01', 'none'), ...withArity('cdfFhLopPRTUv', 'required'), '?': 'optional' },
  long: {
    ...withArity(['command', 'dbname', 'file', 'field-separator', 'host', 'log-file', 'output', 'port', 'pset', 'record-separator', 'table-attr', 'username', 'set', 'variable'], 'required'),
    ...withArity(
      ['echo-all', 'no-align', 'echo-errors', 'echo-queries', 'echo-hidden', 'field-separator-zero', 'html', 'list', 'no-readline', 'single-transaction', 'quiet', 'record-separator-zero', 'single-step', 'single-line', 'tuples-only', 'version', 'no-password', 'password', 'expanded', 'no-psqlrc', 'csv'],
      'none',
    ),
    help: 'optional',
  },
};
const REFUSED_OPTIONS: ReadonlySet<string> = new Set(['f', 'file', 'o', 'output', 'L', 'log-file']);
