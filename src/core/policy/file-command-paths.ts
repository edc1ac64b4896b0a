import type { ResolvedCommand } from '../action/resolved-action.js';
import { argumentPaths } from './argument-paths.js';
import { wrappedCommands } from './exec-wrappers.js';
import { programName } from './lookup-program.js';
import { normalizePath, type NormalizedPath } from './normalize-path.js';

/**
 * The programs that read, write, list or copy the files their arguments
 * name, which Claude Code's Read and Edit denies reach in Bash (`cat`,
 * `head`, `tail`, `sed` and the like). A program read as one when Claude
 * Code does not only makes an imported deny or ask refuse or ask more.
 */
const FILE_COMMANDS: ReadonlySet<string> = new Set([
  ...['cat', 'tac', 'head', 'tail', 'less', 'more', 'nl', 'rev', 'od', 'xxd', 'hexdump', 'strings', 'base64', 'file', 'stat'],
  ...['grep', 'egrep', 'fgrep', 'rg', 'sed', 'awk', 'gawk', 'mawk', 'jq', 'cut', 'paste', 'column', 'sort', 'uniq', 'wc'],
  ...['diff', 'cmp', 'comm', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'zcat', 'ls', 'find'],
  ...['cp', 'mv', 'rm', 'rmdir', 'mkdir', 'touch', 'tee', 'ln'],
]);

/**
 * The paths a command names in its arguments when it, or the command an
 * exec wrapper in it runs (`timeout 5 cat x`), is a file command by its
 * program's base name: as spelled against its working directory, and
 * where the host resolved them, placed in the workspace (`../w/secret.txt`
 * from the root `w` is `secret.txt`, which no spelling above the root
 * shows) and after its links (a link to the file). Undefined when the
 * command runs no file command.
 */
export function fileCommandPaths(argv: readonly string[], command: ResolvedCommand | undefined, roots: readonly string[]): readonly NormalizedPath[] | undefined {
  const fileCommand = wrappedCommands(argv).find((each) => FILE_COMMANDS.has(programName(each[0] ?? '')));
  if (fileCommand === undefined) return undefined;
  const paths = argumentPaths(fileCommand, command?.cwd.path ?? '.', roots);
  for (const file of command?.arguments ?? []) {
    for (const resolved of [file.path, file.real]) {
      const normal = normalizePath(resolved, roots);
      if (normal !== undefined && !paths.some((path) => path.path === normal.path)) paths.push(normal);
    }
  }
  return paths;
}
