import { SHELL_NAMES } from './exec-forms.js';
import { wrappedCommands } from './exec-wrappers.js';
import { gitSubcommandIndex } from './git-danger.js';
import { programName } from './lookup-program.js';
import { npmCommandReadings, npxAsNpm } from './npm-command-readings.js';
import { shellWords } from './shell-words.js';

/**
 * Where a shell ends one command and starts another inside a string: a
 * list, a pipe, a background job, a subshell, a command substitution.
 * Quotes are not read here, so a quoted operator splits too: that only
 * reads more commands.
 */
const COMMAND_BREAK = /[;&|()`\n\r]|\$\(/;

/**
 * Programs that never run a command their arguments name: what follows
 * them is data (`echo git push`, `grep rm notes.md`, `git commit -m 'rm
 * x'`). git's own forms that run a program are the floor's to refuse
 * (`gitDanger`). A program left out of this list is read as if it might run
 * its arguments, which can only widen what a deny or ask covers.
 */
const RUNS_NO_ARGUMENT = new Set([
  'echo', 'printf', 'cat', 'tac', 'ls', 'dir', 'grep', 'egrep', 'fgrep', 'rg', 'head', 'tail', 'wc', 'uniq', 'cut', 'tr', 'diff', 'cmp', 'comm',
  'file', 'stat', 'du', 'df', 'which', 'whereis', 'basename', 'dirname', 'realpath', 'readlink', 'pwd', 'date', 'true', 'false', 'test', 'expr',
  'seq', 'git', 'jq', 'less', 'more', 'mkdir', 'rmdir', 'rm', 'cp', 'mv', 'ln', 'touch', 'chmod', 'chown', 'chgrp', 'tee', 'base64', 'sha256sum',
  'sha1sum', 'md5sum', 'cksum', 'xxd', 'od', 'hexdump', 'strings', 'curl', 'wget', 'uname', 'id', 'whoami', 'hostname', 'printenv', 'sleep',
  'unlink', 'truncate', 'mktemp', 'nl', 'fold', 'fmt', 'paste', 'join', 'column', 'rev', 'shuf', 'tsort', '[',
  // The shell's own words that run none: `[[ $x ]]`, `cd "$d"`, `export PATH=$PATH:x`, `exit $?`.
  '[[', 'cd', 'export', 'local', 'declare', 'typeset', 'readonly', 'unset', 'set', 'shift', 'exit', 'return', 'break', 'continue', 'read', 'wait', 'shopt',
]);

/**
 * Words a shell reads before a command's program inside a string: its
 * reserved words, the builtins that run the words after them (`exec touch
 * x`, `command -p touch x`, `eval touch x`), and `{` and `!`. A command that
 * starts with one of these, with an assignment (`x=1 touch y`) or with a
 * redirection (`2>/dev/null touch y`) is read from each of its words.
 */
const SHELL_PREFIXES = new Set([
  '!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'for', 'case', 'select', 'function', 'time', 'coproc',
  'exec', 'command', 'builtin', 'eval', 'nohup',
]);

/** A shell assignment before a command's program: `NAME=value`, `NAME+=value`. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/**
 * A word the shell turns into another before it runs it as a program: a
 * variable or a substitution (`$a`, `${x}`, `$'…'`) or a pattern it matches
 * against files (`/usr/bin/tou?h`, `{tou,}ch`). No reading can name the
 * program it becomes, so a deny or ask covers the command (`CommandReadings.cut`).
 */
const EXPANDS = /[$`*?[]|\{.*(?:,|\.\.).*\}/;

/**
 * A command substitution (`$(…)`, a backtick) where a string's command has
 * no program yet: at a command's start, after assignments, or joined to
 * the program word (`$(echo touch) x`, `t$(echo ouch) x`, `x=1 `echo
 * touch` y`). The string is split at each substitution and its output names
 * the program, which no reading can: the readings are cut.
 */
const SUBSTITUTED_PROGRAM = /(?:^|[;&|(){}!\n\r])\s*(?:[A-Za-z_][A-Za-z0-9_]*\+?=\S*\s+)*[^\s=;&|(){}]*(?:\$\(|`)/;

/**
 * Commands that run code a string hands them other than as their
 * arguments: a shell without `-c` (`echo touch x | sh`, `bash <(echo touch
 * x)`), `source`/`.` (`source <(echo touch x)`), and `alias`, whose text
 * the shell puts in place of a later command's program (`alias t='touch
 * x'; t`), quoted as the string's split does not read. What runs is no
 * word of the string, so the readings are cut.
 */
const SOURCES = new Set(['source', '.', 'alias']);

/**
 * What makes a shell or the programs it starts run code held in a
 * variable or a file no word names as a command: prompt expansion
 * (`${x@P}`, which runs the substitutions `x` holds, built from escapes no
 * reading sees), the prompt and trace variables a shell expands the same
 * way (`PS4` under `set -x`, `PROMPT_COMMAND`), the file a non-interactive
 * bash sources first (`BASH_ENV`), and the libraries the loader or `enable
 * -f` loads (`LD_PRELOAD`, `LD_AUDIT`, `BASH_LOADABLES_PATH`). A string
 * that names one is cut, however it is used.
 */
const RUNS_DATA_AS_CODE = /@P\}|\b(?:PS[0-4]|PROMPT_COMMAND|BASH_ENV|LD_PRELOAD|LD_AUDIT|BASH_LOADABLES_PATH)\b/;
const SHELLS = new Set(SHELL_NAMES);

/** Shell strings inside shell strings read, at most. */
const MAX_DEPTH = 4;

/**
 * The characters of all readings of one argv, at most (each word and a
 * blank). Every argument of a program toolgate does not know starts a
 * reading that runs to the argv's end, so their length grows with the square
 * of the argv's: 16,000 short words held the gateway's thread 1.6–3 s. Past
 * this the readings are cut, and a deny or ask reads a cut command as one
 * it covers (`CommandReadings.cut`).
 */
const MAX_READ_CHARACTERS = 2_000_000;

/**
 * The readings of one argv, at most. Short commands cost little each, but
 * every rule reads every one: seven shell strings of 8 KB, each of hundreds
 * of commands led by `exec`, were 23,000 readings, and thirty denies read
 * them in 160–190 ms of the gateway's thread. Past this the readings are
 * cut as past `MAX_READ_CHARACTERS`.
 */
const MAX_READINGS = 2048;

/** `commandReadings`' reader keeps every command. */
const KEEP_ALL = (): boolean => true;

/** The argvs a deny or ask reads of one command, and whether they stopped short of every one. */
export interface CommandReadings {
  readonly forms: readonly (readonly string[])[];
  /** More readings than `MAX_READ_CHARACTERS` or `MAX_READINGS` allows: the rest were not read, so any deny or ask may cover them. */
  readonly cut: boolean;
}

/** What one argv's readings have spent, shared by the strings inside it. */
interface Reading {
  readonly seen: Set<string>;
  /** Which programs' readings are kept (`commandReadings`' `keeps`). */
  readonly keeps: (program: string) => boolean;
  characters: number;
  cut: boolean;
}

/**
 * Every command a deny or ask reads in one argv, each the ways
 * `programReadings` gives: the command, and each command the exec wrappers
 * toolgate knows run (`timeout 5 rm x`, `wrappedCommands`). A program that
 * is neither such a wrapper nor one that runs no argument
 * (`RUNS_NO_ARGUMENT`) may run any of its arguments as a command, as
 * `setarch x86_64 rm x`, `prlimit rm x`, `fakeroot rm x`, `strace -f rm x`
 * and `start-stop-daemon --exec=/usr/bin/rm` do: after it, every argument
 * that is no option starts a command, and so does the value of one written
 * `--option=value`, and each command of an argument that holds a blank or
 * a shell operator is read from its first word (`capsh -- -c 'true; rm
 * x'`, `npx -c …`), as a shell reads it (quotes and backslashes taken off),
 * and through the wrappers toolgate knows. A string's command is read as
 * the argv is, from each of its words (`capsh -- -c 'setarch x86_64 rm
 * x'`), past any shell prefix (`SHELL_PREFIXES`, an assignment, a
 * redirection); the readings' bounds keep that square in the string's
 * length. The readings are cut where the shell alone learns what runs: a
 * word it expands (`EXPANDS`) where a command may start (the program, or
 * an argument of a program that may run its arguments: `prlimit $a x`), a
 * command substitution for a program (`SUBSTITUTED_PROGRAM`), code handed
 * by input or a file (`runsUnreadCode`), a string nested deeper than
 * `MAX_DEPTH`. Reading more can only widen what a deny or ask covers; an
 * allow never reads any of this. `keeps` says which programs' commands the
 * reader wants (the floor wants only those it judges): the others are
 * still read through for what they hold and for cuts, but not listed, and
 * count toward no bound.
 */
export function commandReadings(argv: readonly string[], keeps: (program: string) => boolean = KEEP_ALL): CommandReadings {
  const reading: Reading = { seen: new Set(), keeps, characters: 0, cut: false };
  const forms: (readonly string[])[] = [];
  readingsOf(argv, 0, reading, forms);
  return { forms, cut: reading.cut };
}

/**
 * `commandReadings` at `depth` strings deep, into `forms`; `reading.seen`
 * holds the string commands read already, each read once. `redirected`: the
 * string's command held a redirection, which its words no longer show.
 */
function readingsOf(argv: readonly string[], depth: number, reading: Reading, forms: (readonly string[])[], redirected = false): void {
  /**
   * The command `command` makes, led by `program`. `isProgram`: it starts where a string's program stands, so a
   * word the shell expands there cuts the readings. A command whose program the reader does not keep is never made,
   * so a long argv's many commands cost nothing to a reader that keeps few.
   */
  const add = (program: string, command: () => readonly string[], isProgram: boolean): void => {
    if (reading.cut) return;
    // A shell expands a string's word before it runs it: the program it becomes is not the word read.
    if (depth > 0 && isProgram && program !== '[' && program !== '[[' && EXPANDS.test(program)) {
      reading.cut = true;
      return;
    }
    if (!reading.keeps(program)) return;
    for (const form of programReadings(command())) {
      reading.characters += form.reduce((sum, word) => sum + word.length + 1, 0);
      if (reading.characters > MAX_READ_CHARACTERS || forms.length >= MAX_READINGS) {
        reading.cut = true;
        return;
      }
      forms.push(form);
    }
  };
  const commands = wrappedCommands(argv);
  const innermost = commands.at(-1) ?? argv;
  // In a string the program is the first word past the shell prefixes; the words after it are its arguments, read as
  // commands too, and a variable among them cuts only if the program may run them (`prlimit $a x`, not `do echo $f`).
  // The words of a string hold no redirection (`2>/dev/null $a` reads `2`, `/dev/null`, `$a`): with one in the string,
  // no word is known not to be the program, and any that expands cuts.
  const position = depth > 0 ? (redirected ? ANY_WORD : programPosition(innermost)) : 0;
  if (depth > 0 && runsUnreadCode(innermost, position)) {
    reading.cut = true;
    return;
  }
  for (const command of commands) add(command[0] ?? '', () => command, position === 0 || position === ANY_WORD);
  if (RUNS_NO_ARGUMENT.has(programName(innermost[0] ?? ''))) return;
  // Past a program that may run its arguments, each argument is a command's start, where a word that expands cuts too.
  const program = position >= 0 ? (innermost[position] ?? '') : '';
  const runsArguments = position >= 0 && !RUNS_NO_ARGUMENT.has(programName(program));
  const mayStart = (index: number): boolean => position === ANY_WORD || index === position || (runsArguments && index > position);
  for (let index = 1; index < innermost.length && !reading.cut; index += 1) {
    const arg = innermost[index] as string;
    if (startsCommand(arg)) add(arg, () => innermost.slice(index), mayStart(index));
    const equals = arg.indexOf('=');
    const value = equals === -1 ? '' : arg.slice(equals + 1);
    if (startsCommand(value)) add(value, () => [value, ...innermost.slice(index + 1)], mayStart(index));
    readString(arg, depth, reading, forms);
  }
}

/**
 * A word the shell splits into several as it expands it, with no blank
 * written: a variable (`perl${IFS}-e${IFS}…`, `$IFS`, `"$@"`) or a brace
 * list (`{perl,-e,…}`). An argument of the argv holding one, handed to a
 * program that runs it as a shell string (`capsh -- -c`), is a command
 * line. Inside a string such a word is the shell's own, judged where it
 * stands (`mayStart`).
 */
const SPLIT_WORD = /\$[{A-Za-z_0-9@*#?!$-]|\{[^}]*(?:,|\.\.)[^}]*\}/;

/** The commands of `text`, an argument that holds a blank, a shell operator or (in the argv) a word the shell splits, read `depth + 1` strings deep. */
function readString(text: string, depth: number, reading: Reading, forms: (readonly string[])[]): void {
  if (reading.cut || !(/\s/.test(text) || COMMAND_BREAK.test(text) || (depth === 0 && SPLIT_WORD.test(text)))) return;
  if (depth >= MAX_DEPTH || SUBSTITUTED_PROGRAM.test(text) || RUNS_DATA_AS_CODE.test(text)) {
    reading.cut = true;
    return;
  }
  for (const part of text.split(COMMAND_BREAK)) {
    if (reading.cut) return;
    const words = shellWords(part);
    const key = words.join('\0');
    if (words.length === 0 || reading.seen.has(key)) continue;
    reading.seen.add(key);
    readingsOf(words, depth + 1, reading, forms, /[<>]/.test(part));
  }
}

/**
 * Whether a string's command runs code the string hands it other than by
 * its arguments (`SOURCES`): its program, or with a redirection any word,
 * is `source`/`.`, or a shell given no `-c` string to run.
 */
function runsUnreadCode(words: readonly string[], position: number): boolean {
  const programs = position === ANY_WORD ? words.keys() : position >= 0 ? [position] : [];
  for (const at of programs) {
    const word = words[at] ?? '';
    const name = programName(word);
    if (SOURCES.has(word) || SOURCES.has(name) || (SHELLS.has(name) && !words.slice(at + 1).some((word) => SHELL_COMMAND_OPTION.test(word)))) return true;
  }
  return false;
}

/** A shell's option cluster that takes its commands from a string argument: `-c`, `-ec`, `-xc`. */
const SHELL_COMMAND_OPTION = /^-[A-Za-z]*c[A-Za-z]*$/;

/** `programPosition` where any word may be the program. */
const ANY_WORD = -2;

/**
 * Where a string's program stands among words led by shell prefixes, in a
 * string with no redirection: past the reserved words, `exec`/`command`/
 * `eval` and their options (with the name `exec -a` gives), the name of a
 * `function` or of a `coproc` of a compound command, and the assignments. -1 where there is none:
 * after `for`, `select` or `case` come a name and data (`for f in *.ts`),
 * and their commands stand after `do` or `)`, in commands of their own.
 */
function programPosition(words: readonly string[]): number {
  let at = 0;
  let afterExec = false;
  while (at < words.length) {
    const word = words[at] as string;
    if (word === 'for' || word === 'select' || word === 'case') return -1;
    if (!(SHELL_PREFIXES.has(word) || ASSIGNMENT.test(word) || word.startsWith('-'))) return at;
    // `exec -a name $a x` runs `$a` as the program named `name`: the name is its option's value, not the program.
    if (afterExec && EXEC_NAME_OPTION.test(word)) at += 1;
    // `function f { $a x; }` and `coproc n { $a x; }` name the compound command that follows: the name runs nothing.
    if (word === 'function' || (word === 'coproc' && SHELL_PREFIXES.has(words[at + 2] ?? ''))) at += 1;
    if (!word.startsWith('-')) afterExec = word === 'exec';
    at += 1;
  }
  return -1;
}

/** `exec`'s options ending in `-a`, alone or after `-c`/`-l` (`-a`, `-ca`, `-cla`): the next word is the name the program is given. */
const EXEC_NAME_OPTION = /^-[cl]*a$/;

/** An argument a command may start with: not empty, and no option. */
function startsCommand(arg: string): boolean {
  return arg !== '' && !arg.startsWith('-');
}

/**
 * The ways a deny or ask reads one command: as spelled, with the program by
 * its base name (`/usr/bin/rm` is `rm`), git without its global options
 * (`git -C . push` is `git push`), npm's command as npm reads it (`npm x`
 * is `npm exec`: `npmCommandReadings`), and npx as the `npm exec` it is.
 */
export function programReadings(argv: readonly string[]): (readonly string[])[] {
  const program = argv[0] as string;
  const bare = programName(program);
  const forms: (readonly string[])[] = [argv, ...(bare !== program ? [[bare, ...argv.slice(1)]] : [])];
  if (bare === 'git') {
    const subcommand = gitSubcommandIndex(argv);
    if (subcommand > 1) forms.push(['git', ...argv.slice(subcommand)]);
  }
  if (bare === 'npm') forms.push(...npmCommandReadings(argv));
  if (bare === 'npx') forms.push(...npmCommandReadings(npxAsNpm(argv)));
  return forms;
}
