/**
 * sqlite3's command-line shell runs a shell command with `.shell`/`.system`
 * and `.once |cmd`/`.output |cmd`, loads code with `.load`, reads files with
 * `.read`/`.import`/`.restore`, writes where it is told with `.output`,
 * `.once`, `.save`, `.backup`, `.log`, `.trace`, `.clone`, and `-A` (an
 * archive extracted), and runs the dot-commands of `-cmd` and of an `-init`
 * file. Its SQL reaches files too: `writefile()`, `readfile()`, `edit()`
 * (an editor), `load_extension()`, the `fsdir` and `zipfile` tables,
 * `ATTACH` and `VACUUM INTO` (a database written where they say), and
 * `fts3_tokenizer()` (a function pointer). The shell reads an argument that
 * starts with `.` as a dot-command, by any prefix of its name, with the name
 * quoted or after blanks (`.sh`, `. shell`, `."sh\x65ll"`), so only the
 * dot-commands that display (`.tables`, `.schema`, `.mode`, `.headers`, …)
 * are allowed, spelled whole; every line of every argument is read as one
 * could be. Options are allowed from a list of those that only choose how
 * output looks, one dash or two. Returns the refused form, or undefined.
 */
export function sqliteDanger(args: readonly string[]): string | undefined {
  for (const arg of args) {
    if (arg.length > 1 && arg.startsWith('-') && !SAFE_OPTIONS.has(arg.replace(/^--?/, '').toLowerCase())) return 'sqlite3 -cmd/-init/-A or an option that cannot be checked';
    if (arg.split(/[\r\n]/).some((line) => !isDisplayOnlyDotCommand(line))) return 'sqlite3 .shell/.system/.load/.output/.once/.read/.import/.open/.save or a dot-command that cannot be checked';
    if (FILE_SQL.test(arg) || (/\bvacuum\b/i.test(arg) && /\binto\b/i.test(arg))) return 'sqlite3 writefile/readfile/edit/load_extension/fsdir/zipfile/fts3_tokenizer, ATTACH or VACUUM INTO';
  }
  return undefined;
}

// Options that choose an output mode or how the shell reports; `-separator`, `-newline` and `-nullvalue` take a value.
const SAFE_OPTIONS: ReadonlySet<string> = new Set(
  ['ascii', 'bail', 'batch', 'box', 'column', 'csv', 'echo', 'header', 'noheader', 'help', 'html', 'json', 'line', 'list', 'markdown', 'quote', 'readonly', 'safe', 'stats', 'table', 'tabs', 'version', 'nofollow', 'separator', 'newline', 'nullvalue'],
);

// Dot-commands that only display the database or set how output looks.
const DISPLAY_DOT_COMMANDS: ReadonlySet<string> = new Set([
  'tables', 'schema', 'fullschema', 'indexes', 'indices', 'databases', 'dbinfo', 'dump', 'mode', 'headers', 'header', 'show', 'help', 'nullvalue', 'separator', 'width', 'timer', 'stats', 'echo', 'bail', 'changes', 'eqp', 'explain', 'print', 'quit', 'exit', 'binary',
]);

/** A line that is no dot-command, or one that only displays, its name spelled whole and followed by a blank or the end. */
function isDisplayOnlyDotCommand(line: string): boolean {
  const text = line.trimStart();
  if (!text.startsWith('.')) return true;
  const name = /^\.([A-Za-z0-9_]+)(?:\s|$)/.exec(text)?.[1];
  return name !== undefined && DISPLAY_DOT_COMMANDS.has(name.toLowerCase());
}

// SQL functions and tables of the shell that read, write or load files, and statements that write a database where they say.
const FILE_SQL = /\b(?:writefile|readfile|edit|load_extension|fts3_tokenizer|fsdir|zipfile|attach)\b/i;
