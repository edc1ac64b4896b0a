/*
 * How the common launchers read their own command lines: where their options
 * end, which command they run, and what an option of theirs is as opposed to
 * an argument of the server they start. Each reader follows the launcher's
 * own parsing only as far as a guard needs it, and where it cannot tell, it
 * reads the line so that the guard applies (`upstream-launcher.ts`).
 */
import { devNull } from 'node:os';
import { npmCommandsAt } from '../../core/internal.js';

/**
 * The first argument at or after `start` that is none of the launcher's
 * options, skipping the value that follows each option `valued` names:
 * the command, the program or the package, or -1.
 */
function firstPositional(args: readonly string[], start: number, valued: ReadonlySet<string> = NONE): number {
  for (let index = start; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (!arg.startsWith('-') || arg === '-') return index;
    if (valued.has(arg)) index += 1;
  }
  return -1;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The command among a launcher's arguments: the first argument none of its
 * options that `commands` knows. One it does not know is taken for an
 * option's value (`npm --loglevel silent exec`), so a value the reader does
 * not know of never hides the command after it.
 */
function commandAmong(args: readonly string[], commands: ReadonlySet<string>): string | undefined {
  return args.find((arg) => !arg.startsWith('-') && commands.has(arg));
}

/** Whether an npm command line runs a package (`npm exec`, under any spelling npm takes, wherever its options put it: `npmCommandsAt`). */
export function npmRunsPackage(args: readonly string[]): boolean {
  return npmCommandsAt(['npm', ...args]).some(({ command }) => command === 'exec');
}

/** pnpm's commands that start code: `dlx` runs a package, the others the project's own. */
const PNPM_COMMANDS = new Set(['dlx', 'exec', 'run', 'start', 'test', 'create', 'install', 'i', 'add', 'update', 'remove', 'link', 'store', 'env', 'setup', 'server']);

/** Whether a pnpm command line is `pnpm dlx`, wherever its options put it. */
export function pnpmRunsPackage(args: readonly string[]): boolean {
  return commandAmong(args, PNPM_COMMANDS) === 'dlx';
}

/** deno's options before its command that take the next argument as their value. */
const DENO_VALUED = new Set(['-L', '--log-level']);

/** deno's commands that run a program: each takes `--no-config` after it (deno refuses it ahead of them). */
const DENO_RUNNERS = new Set(['run', 'serve', 'watch', 'eval', 'repl']);

/** deno's other commands: a first argument that is none of these, nor a runner, is a program (`deno main.ts` runs it). */
const DENO_COMMANDS = new Set(
  'add audit bench bundle cache check clean compile completions coverage create deploy doc fmt help info init install jupyter link lint list lsp outdated publish remove sandbox task test types uninstall unlink update upgrade vendor why x'.split(' '),
);

/** deno's options that choose its configuration: given, the operator chose it. */
const DENO_CONFIG_OPTION = /^(?:--config(?:=|$)|-c(?:=|$)|--no-config$)/;

/** deno's command: the first argument that is no option nor the value of `-L` (`deno -L info run` runs). */
export function denoCommand(args: readonly string[]): string | undefined {
  return args[firstPositional(args, 0, DENO_VALUED)];
}

/**
 * deno's arguments with `--no-config` where they run a program, unless the
 * operator chose a configuration: deno then reads no `deno.json`,
 * `package.json` or `.npmrc` of the workspace. Only deno's own options count,
 * those before the program: an argument of the server's that reads
 * `--config` is the server's. A server run from the workspace's own sources
 * that needs its `deno.json` names it with `--config`.
 */
export function denoArgs(args: readonly string[]): string[] {
  const first = firstPositional(args, 0, DENO_VALUED);
  const command = args[first];
  if (command !== undefined && DENO_COMMANDS.has(command)) return [...args];
  // `deno <program>`, or a runner: its options run up to the program.
  const at = command !== undefined && DENO_RUNNERS.has(command) ? first + 1 : 0;
  const end = firstPositional(args, at);
  if (args.slice(at, end === -1 ? args.length : end).some((arg) => DENO_CONFIG_OPTION.test(arg))) return [...args];
  return [...args.slice(0, at), '--no-config', ...args.slice(at)];
}

/** bun's options for its configuration, its tsconfig, the `.env` files it loads and its installs as a program runs; given, the operator chose them. */
const BUN_OPTIONS: readonly (readonly [RegExp, string])[] = [
  [/^(?:--config(?:=|$)|-c(?:=|$))/, `--config=${devNull}`],
  [/^--tsconfig-override(?:=|$)/, `--tsconfig-override=${devNull}`],
  [/^--(?:no-)?env-file(?:=|$)/, '--no-env-file'],
  [/^(?:--no-install$|--install(?:=|$)|-i$)/, '--no-install'],
];

/**
 * bun's arguments with a configuration of nothing (`--config` and
 * `--tsconfig-override` naming the null device), no `.env` file and no
 * installs, each unless the operator gave its own: bun then neither preloads
 * what the workspace's `bunfig.toml` lists, nor resolves the program it was
 * named through the `paths` of the workspace's `tsconfig.json` or
 * `jsconfig.json` (a `*` there ran the workspace's file in the server's
 * place), nor loads its `.env` into the server's environment, nor installs an
 * import the server lacks from the registry the workspace's `.npmrc` names.
 * Only bun's options before the program count, on either side of `run`.
 */
export function bunArgs(args: readonly string[]): string[] {
  const head = firstPositional(args, 0);
  const headEnd = head === -1 ? args.length : head;
  const afterRun = args[headEnd] === 'run' ? firstPositional(args, headEnd + 1) : headEnd;
  const options = args.slice(0, afterRun === -1 ? args.length : afterRun);
  return [...BUN_OPTIONS.filter(([given]) => !options.some((arg) => given.test(arg))).map(([, added]) => added), ...args];
}


/**
 * Python's arguments with `-P` ahead of them where `-m` or `-c` would put
 * the working directory first on the module path, unless they hold `-P` or
 * `-I` already. The variable alone (`launcherEnv`) is read by Python 3.11
 * and later only, and not under `-E`: Python 3.10 ran the workspace's
 * `mcp_server_git` under it, whatever the configuration declared (a pyenv
 * shim even chose 3.10 by the workspace's `.python-version`). Python 3.10
 * refuses `-P` and does not start, which says why. A server meant to run
 * from the workspace's own sources names them with `PYTHONPATH`, which
 * Python still reads.
 */
export function pythonArgs(args: readonly string[]): string[] {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    // The program, standard input, or the end of Python's options: nothing that reads the working directory first.
    if (!arg.startsWith('-') || arg === '-' || arg === '--') break;
    if (arg.startsWith('--')) {
      if (arg === '--check-hash-based-pycs') index += 1;
      continue;
    }
    // A cluster of one-letter options (`-um`); `-W` and `-X` take the rest of it as their value, or the next argument.
    for (const [at, flag] of [...arg.slice(1)].entries()) {
      if (flag === 'P' || flag === 'I') return [...args];
      if (flag === 'm' || flag === 'c') return ['-P', ...args];
      if (flag === 'W' || flag === 'X') {
        if (at === arg.length - 2) index += 1;
        break;
      }
    }
  }
  return [...args];
}

/** node's options that load a module before the program (and bun's `--preload`), each followed by the module, or written `--import=<module>`. */
const NODE_PRELOADS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--preload']);

/**
 * The first module a node command line loads before its program by a bare
 * name (`--import tsx`, `-r dotenv/config`), or undefined. node resolves
 * such a name from the working directory, so the workspace's
 * `node_modules/tsx` ran in place of the one the operator had installed. A
 * path (absolute, or relative to the workspace, which is the workspace's
 * code by the operator's word), a `node:`, `file:` or `data:` URL names its
 * module itself. Every argument is read, the server's too: node stops at
 * the program, but an option it takes with a separate value could hide
 * where that is, and a server argument that reads as a preload is refused
 * rather than let a preload pass.
 */
export function barePreload(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    const equals = arg.indexOf('=');
    const option = nodeOptionName(equals === -1 ? arg : arg.slice(0, equals));
    if (!NODE_PRELOADS.has(option)) continue;
    const module = equals === -1 ? args[(index += 1)] : arg.slice(equals + 1);
    if (module !== undefined && !/^(?:[./\\]|[a-z]:|node:|file:|data:)/i.test(module)) return module;
  }
  return undefined;
}

/** node's options that take the next argument as their value. */
const NODE_VALUED = new Set([...NODE_PRELOADS, '-C', '--conditions', '--input-type', '--title', '--env-file', '--watch-path', '--test-name-pattern', '--test-reporter', '--test-reporter-destination']);

/** The launchers node may run by the path of their script (`node /usr/lib/node_modules/npm/bin/npx-cli.js`). */
const SCRIPT_LAUNCHERS = new Set(['npx', 'npm', 'pnpm', 'pnpx', 'yarn', 'corepack']);

/**
 * Where a node command line runs a launcher by the path of its script, and
 * which (`launcherOf` tells what a path is): npx so started is npx, and gets
 * what npx gets. Every argument before `--` is looked at, not only the first
 * that is no option: an option node takes with a separate value this reader
 * does not know of (`--disable-warning ExperimentalWarning`) would otherwise
 * hide the script. Undefined when node runs inline code (`-e`, `-p`) or any
 * other program.
 */
export function nodeLauncherScript(args: readonly string[], launcherOf: (command: string) => string): { readonly at: number; readonly launcher: string } | undefined {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  if (options.some((arg) => /^(?:-e|--eval|-p|--print)(?:=|$)/.test(arg))) return undefined;
  // After `--` node runs the next argument as its program.
  const candidates = [...positionsIn(options), ...(end === -1 || end + 1 >= args.length ? [] : [end + 1])];
  for (const at of candidates) {
    const launcher = launcherOf(args[at] as string);
    if (SCRIPT_LAUNCHERS.has(launcher)) return { at, launcher };
  }
  return undefined;
}

/** Where the arguments that are none of node's options stand, skipping the values of those node takes apart. */
function positionsIn(options: readonly string[]): number[] {
  const positions: number[] = [];
  for (let at = firstPositional(options, 0, NODE_VALUED); at !== -1; at = firstPositional(options, at + 1, NODE_VALUED)) positions.push(at);
  return positions;
}

/**
 * The files node, tsx, bun or deno load an environment from (`--env-file`,
 * `--env-file-if-exists`), as written; node applies the `NODE_OPTIONS` they
 * set, deno the `DENO_DIR` and registry. One written without `=` names the
 * next argument, unless that is an option or a specifier, before which
 * deno's names `./.env`, the workspace's.
 */
export function nodeEnvFiles(args: readonly string[]): string[] {
  const files: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = nodeOptionName(args[index] as string);
    // deno takes `--env` for `--env-file`.
    const match = /^--env(?:-file(?:-if-exists)?)?(=|$)/.exec(arg);
    if (match === null) continue;
    if (match[1] === '=') files.push(arg.slice(arg.indexOf('=') + 1));
    // deno's `--env-file` takes its value after `=` only: before an option or a specifier (`npm:…`) it names `./.env`.
    else if (args[index + 1] === undefined || /^-|^[a-z][a-z\d+.-]+:/i.test(args[index + 1] as string)) files.push('.env');
    else files.push(args[(index += 1)] as string);
  }
  return files;
}

/**
 * What an env file may give `NODE_OPTIONS`: every value a line for it holds,
 * each with its quotes of any kind (`"`, `'`, a backtick) taken off, joined.
 * node's reader drops a trailing `# comment` and reads a quoted value up to
 * its closing quote; read this way, without quotes and with what follows,
 * every module those values could load is among the words judged.
 */
export function nodeOptionsInEnvFile(text: string): string | undefined {
  const values: string[] = [];
  for (const line of text.split(/\r?\n|\r/)) {
    const match = /^\s*(?:export\s+)?NODE_OPTIONS\s*=(.*)$/.exec(line);
    if (match !== null) values.push((match[1] ?? '').replace(/["'`]/g, ' '));
  }
  return values.length === 0 ? undefined : values.join(' ');
}

/** An option's name as node reads it: `_` in a long option's name is `-` (`--experimental_loader`). */
export function nodeOptionName(arg: string): string {
  return arg.replace(/(?<=^--.*)_/g, '-');
}

/** The arguments of `NODE_OPTIONS` as node reads them: separated by spaces, outside quotes. */
export function nodeOptionsArgs(value: string): string[] {
  return [...value.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2] ?? '');
}

/** The first module a `NODE_OPTIONS` value loads by a bare name (see `barePreload`), or undefined. */
export function nodeOptionsPreload(value: string): string | undefined {
  return barePreload(nodeOptionsArgs(value));
}

/** npm's `--node-options`, and each abbreviation of it npm expands (`--node-opt`), in either spelling. */
const NPM_NODE_OPTIONS = /^--node[-_]o(?:p(?:t(?:i(?:o(?:ns?)?)?)?)?)?(?:=|$)/i;

/** The value of npm's `--node-options`, which npm hands to what it runs as `NODE_OPTIONS`. */
export function npmNodeOptions(args: readonly string[]): string | undefined {
  const at = args.findIndex((arg) => NPM_NODE_OPTIONS.test(arg));
  if (at === -1) return undefined;
  const arg = args[at] as string;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[at + 1];
}

/** uv's options naming the folder it takes its project and configuration from. */
const UV_FOLDER_OPTION = /^--(?:directory|project)(?:=|$)/;

/**
 * Whether a uv command line is `uv run` in the folder it starts in: `run`
 * comes before any `tool` (`uv tool run`, uvx, reads no configuration of the
 * folder) and no `--directory` or `--project` precedes it. Only those before
 * `run` count: after it, an option of that name may be the server's own.
 */
export function runsUvProject(args: readonly string[]): boolean {
  const at = args.findIndex((arg) => arg === 'run' || arg === 'tool');
  return args[at] === 'run' && !args.slice(0, at).some((arg) => UV_FOLDER_OPTION.test(arg));
}

/** Packages that are launchers themselves: started through npx, `npm exec`, `pnpm dlx` or `deno run npm:`, none of the guards reaches them. */
const LAUNCHER_PACKAGE = /^(?:npm:)?(?:yarn[\w.-]*|@yarnpkg\/cli-dist|corepack|npm|npx|pnpm|pnpx|bun|bunx|deno|node)(?:@[^/]*)?$/;

/**
 * The launcher package a package runner's arguments start (`npx -y
 * deno run …`, `pnpm dlx npm exec …`, `npx yarn-berry dlx`), or undefined.
 * Every argument before `--` is read, the server's too: which one is the
 * package depends on options whose values this reader cannot all know, and
 * a server argument that reads as a launcher's name is refused rather than
 * let a launcher pass.
 */
export function launcherPackage(args: readonly string[]): string | undefined {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end + 2)).find((arg) => LAUNCHER_PACKAGE.test(arg.replace(/^--?(?:p|package)=/, '')));
}

/**
 * `env`'s options toolgate reads: each one alone, those that take a value
 * followed by it or written `--chdir=DIR`. Not `-i` nor `-u`: they took off
 * what toolgate sets for the command (`launcherEnv`), and `env -i tsx`
 * mapped the server's imports through the workspace's `tsconfig.json` again.
 */
const ENV_FLAGS = new Set(['-0', '--null', '-v', '--debug']);
const ENV_VALUED = new Set(['-C', '--chdir']);

/**
 * Where the command `env` runs begins among its arguments (after its own
 * options and the `NAME=value` settings), or -1 for none; undefined for an
 * option this reader does not follow: `-S`, which splits a string into more
 * arguments, a cluster (`-vu NAME`) or an abbreviation (`--uns`), whose
 * reading would have to match GNU env's to the letter.
 */
export function envCommandIndex(args: readonly string[]): number | undefined {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '--') return index + 1 < args.length ? index + 1 : -1;
    if (ENV_VALUED.has(arg)) {
      index += 1;
      continue;
    }
    if (ENV_FLAGS.has(arg) || arg.startsWith('--chdir=')) continue;
    if (arg.startsWith('-')) return undefined;
    if (/^[^=]+=/.test(arg)) continue;
    return index;
  }
  return -1;
}

/** The `NAME=value` settings among `env`'s own arguments: they join the environment of the command it starts. */
export function envAssignments(args: readonly string[]): Record<string, string> {
  const settings: Record<string, string> = {};
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (ENV_VALUED.has(arg)) index += 1;
    else if (!arg.startsWith('-') && arg.includes('=')) settings[arg.slice(0, arg.indexOf('='))] = arg.slice(arg.indexOf('=') + 1);
  }
  return settings;
}

/** The code an interpreter's command line runs (`-e CODE`, `-eCODE`, a cluster ending in the flag), for the flags given. */
export function codeOf(args: readonly string[], flags: string): string[] {
  return args.flatMap((arg, index) => {
    if (!arg.startsWith('-') || arg.startsWith('--')) return [];
    for (let at = 1; at < arg.length; at += 1) {
      if (!flags.includes(arg[at] as string)) continue;
      const rest = arg.slice(at + 1);
      return [rest === '' ? (args[index + 1] ?? '') : rest];
    }
    return [];
  });
}

/** Whether a node (or bun) command line evaluates code given on it: `-e`, `-p`, `--eval`, `--print`, or a cluster such as `-pe`. */
export function evaluatesCode(args: readonly string[]): boolean {
  return args.some((arg) => /^-[ep]+$|^--(?:eval|print)(?:=|$)/.test(arg));
}
