import { normalizePath, type NormalizedPath } from './normalize-path.js';

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
  for (const arg of argv.slice(1)) {
    for (const part of new Set([arg, ...arg.split(/[=:]/).slice(1)])) {
      if (part.length === 0) continue;
      const absolute = normalizePath(part)?.absolute === true;
      const normal = normalizePath(absolute ? part : `${base}${part}`, roots);
      if (normal !== undefined) paths.push(normal);
    }
  }
  return paths;
}
