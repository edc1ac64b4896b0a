import { normalizePath, type NormalizedPath } from './normalize-path.js';
import type { WorkspaceMembers } from '../action/resolved-action.js';
import { climbFolders, runnerCode } from './runner-code.js';

/** What normalizePath reads as absolute: a root, a home directory, a drive. */
const ABSOLUTE = /^(?:[\\/]|~(?:[\\/]|$)|[A-Za-z]:[\\/])/;

/** What a spawned program reads as absolute: no shell expands `~` in an argv, so `~/x` is a folder named `~`. */
const ROOTED = /^(?:[\\/]|[A-Za-z]:[\\/])/;

/**
 * The most argument paths a host resolves for one command. Each costs an
 * `lstat` per component; a command naming more is judged as naming a
 * protected path rather than left half looked at.
 */
export const MAX_RESOLVED_ARGUMENTS = 64;

/**
 * The paths a command's arguments may name, read against its working
 * directory: each argument after the program as a whole, and each part of
 * it after a `=` or a `:` (`--file=.env`, `if=.env`, `HEAD:.env`), and the
 * file after a leading `@` (`-d @.env`). A
 * program reads and writes the files its arguments name wherever the
 * working directory is, so `cat .env` and `cp payload .git/config` reach a
 * protected path as surely as the file tools that name it do. Lexical: a
 * symlink or a hard link in an argument is seen only where a host resolves
 * the same candidates (`resolvableArguments`).
 */
export function argumentPaths(argv: readonly string[], cwd: string, roots: readonly string[]): NormalizedPath[] {
  const base = cwd === '.' ? '' : `${cwd}/`;
  const paths: NormalizedPath[] = [];
  eachCandidate(argv, (part) => {
    const normal = normalizePath(ABSOLUTE.test(part) ? part : `${base}${part}`, roots);
    if (normal !== undefined) paths.push(normal);
  });
  return paths;
}

/**
 * The same candidates, spelled for a host to walk on its disk: joined to the
 * working directory as the call gave it, an option (`-la`, `--force`) left
 * out unless a value follows its `=` or `:`, a part no path can have (a NUL)
 * left out; then the files a runner among them reads its code from
 * (`runnerCode`). Given `climbs`, how deep the host found each folder a
 * runner climbs from (`climbFolders`), those folders come before the files,
 * so the host pins them as it pins the files, and the climb takes that many
 * steps. Given `members`, what the host found the workspaces a runner
 * selects members of name, the folders their globs listed come before those
 * folders (`RunnerCode.listings`), and the members' files among the runner's.
 * Undefined when there are more than `MAX_RESOLVED_ARGUMENTS`, or
 * more runner files than it lists (`RunnerCode.cut`).
 */
export function resolvableArguments(argv: readonly string[], cwd: string, climbs?: readonly number[], members?: readonly WorkspaceMembers[]): readonly string[] | undefined {
  const add = spellerFrom(cwd);
  const parts: string[] = [];
  eachCandidate(argv, (part, whole) => {
    if ((whole && part.startsWith('-')) || part.includes('\0')) return;
    parts.push(add(part));
  });
  // The files a runner reads its code from, which no argument names (`npm test` runs package.json's script).
  const code = runnerCode(argv, cwd, climbs, members);
  if (code?.cut === true) return undefined;
  for (const folder of code?.listings ?? []) parts.push(add(folder));
  if (climbs !== undefined) parts.push(...runnerFolders(argv, cwd));
  for (const file of code?.files ?? []) parts.push(add(file));
  return parts.length > MAX_RESOLVED_ARGUMENTS ? undefined : parts;
}

/** The files naming the members of the workspaces a command's runners select members of (`RunnerCode.roots`), spelled for a host as the candidates are. */
export function runnerWorkspaces(argv: readonly string[], cwd: string, climbs: readonly number[] | undefined): readonly string[] {
  const add = spellerFrom(cwd);
  return (runnerCode(argv, cwd, climbs)?.roots ?? []).map(add);
}

/** The folders the runners of a command climb from (`climbFolders`), spelled for a host as the candidates are. */
export function runnerFolders(argv: readonly string[], cwd: string): readonly string[] {
  const add = spellerFrom(cwd);
  return climbFolders(argv).map((folder) => (folder === '.' ? cwd : add(folder)));
}

/** A path as a spawned program opens it from the working directory `cwd`, as the call spells it: a rooted one as it is. */
function spellerFrom(cwd: string): (part: string) => string {
  const base = cwd === '.' ? '' : `${cwd}/`;
  return (part) => (ROOTED.test(part) ? part : `${base}${part}`);
}

/**
 * Each non-empty argument after the program (`whole`), then each non-empty
 * part of it after a `=` or a `:`; and of each, what follows a leading `@`:
 * curl sends the file `-d @.env` and `-F f=@.env` name, and compilers read
 * arguments from a response file `@args`.
 */
function eachCandidate(argv: readonly string[], visit: (part: string, whole: boolean) => void): void {
  const visitNamed = (part: string, whole: boolean): void => {
    visit(part, whole);
    if (part.length > 1 && part.startsWith('@')) visit(part.slice(1), false);
  };
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg.length > 0) visitNamed(arg, true);
    if (arg.includes('=') || arg.includes(':')) for (const part of arg.split(/[=:]/).slice(1)) if (part.length > 0) visitNamed(part, false);
    if (arg.length > 2 && arg.charCodeAt(0) === 45 && arg.charCodeAt(1) !== 45) visitAttached(arg, visitNamed);
  }
}

/** How many bundled flags may stand before a short option's attached value (`-xzvfa.tar`) and still be read. */
const MAX_BUNDLED_FLAGS = 8;

/**
 * A short option's value written against it (`cp -t.git/hooks x`, `tar
 * -C/home/u/.ssh -cf out.tar id_rsa`, `grep -f.env`) is a path the program
 * opens, as surely as the same value as its own argument. Which letter takes
 * a value is the program's to say, and flags bundle before it (`-xvf.env`):
 * each rest of the option after its first letter is read as one. Before, the
 * option was read as a whole, a folder named `-t.git`, and a glob-allowed
 * `cp` planted a hook in `.git/hooks` with nobody asked.
 */
function visitAttached(arg: string, visitNamed: (part: string, whole: boolean) => void): void {
  const last = Math.min(arg.length - 2, 1 + MAX_BUNDLED_FLAGS);
  // Flags are letters or digits; a value of one character (`-la`) names no path worth a look, and one after `=` or `:` is read above.
  for (let start = 2; start <= last && FLAG.test(arg.charAt(start - 1)); start += 1) {
    const code = arg.charCodeAt(start);
    if (code !== 61 && code !== 58) visitNamed(arg.slice(start), false);
  }
}

const FLAG = /^[A-Za-z0-9]$/;
