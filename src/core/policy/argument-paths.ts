import { normalizePath, type NormalizedPath } from './normalize-path.js';

/** What normalizePath reads as absolute: a root, a home directory, a drive. */
const ABSOLUTE = /^(?:[\\/]|~(?:[\\/]|$)|[A-Za-z]:[\\/])/;

/**
 * The paths a command's arguments may name, read against its working
 * directory: each argument after the program as a whole, and each part of
 * it after a `=` or a `:` (`--file=.env`, `if=.env`, `HEAD:.env`). A
 * program reads and writes the files its arguments name wherever the
 * working directory is, so `cat .env` and `cp payload .git/config` reach a
 * protected path as surely as `read_file` and `write_file` do. Lexical: a
 * symlink or a hard link in an argument is not followed.
 */
export function argumentPaths(argv: readonly string[], cwd: string, roots: readonly string[]): NormalizedPath[] {
  const base = cwd === '.' ? '' : `${cwd}/`;
  const paths: NormalizedPath[] = [];
  const add = (part: string): void => {
    const normal = part.length === 0 ? undefined : normalizePath(ABSOLUTE.test(part) ? part : `${base}${part}`, roots);
    if (normal !== undefined) paths.push(normal);
  };
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    add(arg);
    if (arg.includes('=') || arg.includes(':')) for (const part of arg.split(/[=:]/).slice(1)) add(part);
  }
  return paths;
}
