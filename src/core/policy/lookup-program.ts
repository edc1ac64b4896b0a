import { withoutTrailingDotsAndSpaces } from './protected-paths.js';
import { trailingRunStart } from './trailing-run.js';

/**
 * The name a program goes by: the basename of argv[0] (a path that an exact
 * entry admitted is judged by what it names), without case, trailing dots
 * and blanks or a Windows `.exe`/`.com` extension, since on macOS and
 * Windows `SH`, `sh.exe` and `sh.` run sh.
 */
export function programName(argv0: string): string {
  const parts = argv0.split(/[\\/]/);
  const trim = withoutTrailingDotsAndSpaces;
  return trim(trim((parts[parts.length - 1] ?? '').toLowerCase()).replace(/\.(exe|com)$/, ''));
}

/**
 * The table entry for the program argv[0] runs: by `programName`, then,
 * when that is not in the table, without a version suffix (`python3.12`,
 * `perl5.36`, `php8.2`, `pypy3`, `lua5.4`). Reading too much into a name
 * can only refuse more: the glob has admitted the command already.
 */
export function lookupProgram<T>(table: ReadonlyMap<string, T>, argv0: string): { readonly name: string; readonly entry: T } | undefined {
  const name = programName(argv0);
  const exact = table.get(name);
  if (exact !== undefined) return { name, entry: exact };
  const unversioned = withoutVersion(name);
  const entry = unversioned === name ? undefined : table.get(unversioned);
  return entry === undefined ? undefined : { name: unversioned, entry };
}

/**
 * A name without the version it ends with (`python3.12` is `python`): the
 * digits and dots at its end, from the first digit among them, found by one
 * scan back (`trailingRunStart`), never by `[0-9][0-9.]*$`.
 */
function withoutVersion(name: string): string {
  let end = trailingRunStart(name, (char) => (char >= '0' && char <= '9') || char === '.');
  // The run must begin with a digit: skip the dots that lead it.
  while (end < name.length && name[end] === '.') end += 1;
  return end === name.length ? name : name.slice(0, end);
}
