/*
 * A stdio upstream starts in the workspace (a relative path of its arguments,
 * `server-filesystem .`, means the workspace), and the common launchers look
 * there first for the code they run. npx, and `npm exec`, take a package from
 * the `node_modules` of the nearest folder holding one or a `package.json`
 * (and read that folder's `.npmrc`) over the one the operator named; `pnpm
 * dlx` and `pnpx` read the workspace's `.npmrc`, whose `registry` then
 * chooses the code that runs; `bunx` runs the workspace's `node_modules/.bin`
 * ahead of the package it names; `python -m` puts the working directory first
 * on the module path. deno reads the workspace's `deno.json` (an import map
 * may name the workspace's file for the package), `package.json` (its
 * `node_modules` then supplies the package) and `.npmrc`; bun preloads what
 * the workspace's `bunfig.toml` lists, loads its `.env`, and installs a
 * missing import from the registry its `.npmrc` names; yarn runs the script
 * the workspace's `.yarnrc.yml` names as `yarnPath` in its own place; `uv run`
 * makes the workspace's own project ready first, running its build backend.
 * A repository that ships
 * `node_modules/@modelcontextprotocol/server-filesystem`, or a folder
 * `mcp_server_git`, had `toolgate serve` run its own code at start, outside
 * any sandbox, with nobody asked (`test/attack-upstream-launcher.test.ts`).
 * The executable itself is already looked up on a fixed system PATH only;
 * this keeps the workspace from choosing the code the launcher runs.
 */
import { devNull } from 'node:os';

/** npm's option fixing the folder npx takes local packages and a project `.npmrc` from. */
const PREFIX_OPTION = /^--prefix(?:=|$)/;

/** pnpm's option naming the folder it reads its project configuration from: `--dir` or `-C`. */
const DIR_OPTION = /^(?:--dir(?:=|$)|-C)/;

/**
 * The arguments of a stdio upstream: for npx and `npm exec` (`npm x`), the
 * option `--prefix` naming `neutral`, a folder of the gateway's own outside
 * the workspace, unless the operator gave one. npx then runs the package from
 * its cache or the registry, by the name the configuration gives. For `pnpm
 * dlx`, `--dir` naming that folder, unless the operator gave one: pnpm then
 * reads its configuration there, and still starts the package in the
 * workspace.
 */
export function launcherArgs(command: string, args: readonly string[], neutral: string, declaredEnv: Readonly<Record<string, string>> = {}): string[] {
  const name = launcherName(command);
  if (PYTHON.test(name)) return pythonArgs(args, declaredEnv);
  const npmExec = name === 'npx' || (name === 'npm' && (args[0] === 'exec' || args[0] === 'x'));
  if (npmExec && !args.some((arg) => PREFIX_OPTION.test(arg))) {
    const prefix = `--prefix=${neutral}`;
    return name === 'npx' ? [prefix, ...args] : [args[0] as string, prefix, ...args.slice(1)];
  }
  if (name === 'pnpm' && subcommandOf(args) === 'dlx' && !args.some((arg) => DIR_OPTION.test(arg))) return [`--dir=${neutral}`, ...args];
  if (name === 'deno') return denoArgs(args);
  if (name === 'bun') return bunArgs(args);
  return [...args];
}

/** Python's executables: `python`, `python3`, `python3.12`. */
const PYTHON = /^python(?:\d+(?:\.\d+)*)?$/;

/**
 * Python's arguments with `-P` ahead of them where `-m` or `-c` would put
 * the working directory first on the module path, unless they hold `-P` or
 * `-I` already or the operator declared `PYTHONSAFEPATH`. The variable
 * alone (`launcherEnv`) is read by Python 3.11 and later only: Python 3.10
 * ran the workspace's `mcp_server_git` under it. Python 3.10 refuses `-P`
 * and does not start, which says why.
 */
function pythonArgs(args: readonly string[], declaredEnv: Readonly<Record<string, string>>): string[] {
  if (declaredEnv.PYTHONSAFEPATH !== undefined) return [...args];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    // The program, standard input, or the end of Python's options: nothing that reads the working directory first.
    if (!arg.startsWith('-') || arg === '-' || arg === '--') break;
    if (arg.startsWith('--')) {
      if (arg === '--check-hash-based-pycs') index += 1;
      continue;
    }
    // A cluster of one-letter options (`-um`); `-W` and `-X` take the rest, or the next argument, as their value.
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

/** deno's commands that run a program: each takes `--no-config` after it (deno refuses it ahead of them). */
const DENO_RUNNERS = new Set(['run', 'serve', 'watch', 'eval', 'repl']);

/** deno's other commands: a first argument that is none of these, nor a runner, is a program (`deno main.ts` runs it). */
const DENO_COMMANDS = new Set(
  'add audit bench bundle cache check clean compile completions coverage create deploy doc fmt help info init install jupyter link lint list lsp outdated publish remove sandbox task test types uninstall unlink update upgrade vendor why x'.split(' '),
);

/** deno's options that choose its configuration: given, the operator chose it. */
const DENO_CONFIG_OPTION = /^(?:--config(?:=|$)|-c(?:=|$)|--no-config$)/;

/**
 * deno's arguments with `--no-config` where they run a program, unless the
 * operator chose a configuration: deno then reads no `deno.json`,
 * `package.json` or `.npmrc` of the workspace. Only deno's own options count,
 * those before the program: an argument of the server's that reads
 * `--config` is the server's. A server run from the workspace's own sources
 * that needs its `deno.json` names it with `--config`.
 */
function denoArgs(args: readonly string[]): string[] {
  const first = args.findIndex((arg) => !arg.startsWith('-'));
  const command = args[first];
  if (command !== undefined && DENO_COMMANDS.has(command)) return [...args];
  // `deno <program>`, or a runner: its options run up to the program.
  const at = command !== undefined && DENO_RUNNERS.has(command) ? first + 1 : 0;
  if (optionsFrom(args, at).some((arg) => DENO_CONFIG_OPTION.test(arg))) return [...args];
  return [...args.slice(0, at), '--no-config', ...args.slice(at)];
}

/** bun's options for its configuration, the `.env` files it loads and its installs as a program runs; given, the operator chose them. */
const BUN_CONFIG_OPTION = /^(?:--config(?:=|$)|-c(?:=|$))/;
const BUN_ENV_FILE_OPTION = /^--(?:no-)?env-file(?:=|$)/;
const BUN_INSTALL_OPTION = /^(?:--no-install$|--install(?:=|$)|-i$)/;

/**
 * bun's arguments with a configuration of nothing (`--config` naming the
 * null device), no `.env` file and no installs, each unless the operator gave
 * its own: bun then neither preloads what the workspace's `bunfig.toml`
 * lists, nor loads its `.env` into the server's environment, nor installs an
 * import the server lacks from the registry the workspace's `.npmrc` names.
 * Only bun's options before the program count, on either side of `run`.
 */
function bunArgs(args: readonly string[]): string[] {
  const head = optionsFrom(args, 0);
  const options = args[head.length] === 'run' ? [...head, ...optionsFrom(args, head.length + 1)] : head;
  const given = (option: RegExp): boolean => options.some((arg) => option.test(arg));
  return [
    ...(given(BUN_CONFIG_OPTION) ? [] : [`--config=${devNull}`]),
    ...(given(BUN_ENV_FILE_OPTION) ? [] : ['--no-env-file']),
    ...(given(BUN_INSTALL_OPTION) ? [] : ['--no-install']),
    ...args,
  ];
}

/** The options at the head of `args` from `start`: up to the first argument that is not one (the program, or an option's value). */
function optionsFrom(args: readonly string[], start: number): readonly string[] {
  const end = args.findIndex((arg, index) => index >= start && !arg.startsWith('-'));
  return args.slice(start, end === -1 ? args.length : end);
}

/**
 * Why toolgate will not start a launcher that lets the workspace choose its
 * code and that it cannot keep from doing so, or undefined for any other
 * command: `pnpx`, which takes no `--dir` ahead of its package; `bunx` (or
 * `bun x`), whose only way out of the workspace's `node_modules/.bin`,
 * `--cwd`, starts the server elsewhere too; yarn, which reads the
 * workspace's `.yarnrc.yml` whatever its options say; `deno x` (or `dx`),
 * which fails to run most packages under `--no-config`; and `uv run` with no
 * folder of the server's own named ahead of `run`.
 */
export function refusedLauncher(command: string, args: readonly string[]): string | undefined {
  const name = launcherName(command);
  if (name === 'pnpx') return "pnpx reads the workspace's .npmrc, whose registry a repository sets to choose the code it runs: write the command as pnpm dlx, which toolgate starts with --dir naming a folder of its own";
  if (name === 'bunx' || (name === 'bun' && subcommandOf(args) === 'x')) {
    return "bunx runs the workspace's node_modules/.bin ahead of the package it names, and a repository ships its own copy there: start the server with npx or pnpm dlx, which toolgate keeps to the package named, or by the path of an installed copy";
  }
  if (name === 'yarn' || name === 'yarnpkg') {
    return "yarn runs the script the workspace's .yarnrc.yml names as its yarnPath in its own place, whatever --cwd says, and loads the plugins it lists: start the server with node, npx or pnpm dlx";
  }
  if (name === 'dx' || (name === 'deno' && subcommandOf(args) === 'x')) {
    return "deno x reads the workspace's deno.json, package.json and .npmrc, whose import map, node_modules and registry choose the code it runs, and runs few packages without them: write the command as deno run npm:<package>, which toolgate starts with --no-config";
  }
  if (name === 'uv' && runsUvProject(args)) {
    return "uv run installs the workspace's own project first, running its build backend, and reads its uv.toml: name the server's own folder ahead of run (uv --directory /path/to/server run ...), or start the server with uvx";
  }
  return undefined;
}

/**
 * Whether a uv command line is `uv run` in the folder it starts in: `run`
 * comes before any `tool` (`uv tool run`, uvx, reads no configuration of the
 * folder) and no `--directory` or `--project` precedes it. Only those before
 * `run` count: after it, an option of that name may be the server's own.
 */
function runsUvProject(args: readonly string[]): boolean {
  const at = args.findIndex((arg) => arg === 'run' || arg === 'tool');
  return args[at] === 'run' && !args.slice(0, at).some((arg) => UV_FOLDER_OPTION.test(arg));
}

/** uv's options naming the folder it takes its project and configuration from. */
const UV_FOLDER_OPTION = /^--(?:directory|project)(?:=|$)/;

/** The command a pnpm or bun command line runs: their own options come before it, so the first argument that is not one. */
function subcommandOf(args: readonly string[]): string | undefined {
  return args.find((arg) => !arg.startsWith('-'));
}

/** A command's executable name: its last segment by either separator (a Windows configuration names `C:\node\npx.cmd`), without `.cmd` or `.exe`. */
function launcherName(command: string): string {
  return (command.split(/[\\/]/).pop() ?? command).replace(/\.(?:cmd|exe)$/i, '');
}

/**
 * The environment a stdio upstream is declared with, and under it
 * `PYTHONSAFEPATH=1`: Python (3.11 and later) then leaves the working
 * directory off the module path of `python -m` (an older one refuses the
 * `-P` of `launcherArgs`); and `TSX_TSCONFIG_PATH`
 * naming the null device: tsx, which otherwise reads the `tsconfig.json` of
 * the folder it starts in, then maps no import of the server through the
 * workspace's `paths` (one of `@modelcontextprotocol/sdk/*` named the
 * workspace's file for the server's own import, in `tsx /path/to/server.ts`
 * and `npx tsx` alike). A server that is meant to run from the workspace's
 * own sources says so with `PYTHONPATH` or `TSX_TSCONFIG_PATH` in its `env`;
 * a declared value wins.
 */
export function launcherEnv(declared: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return { PYTHONSAFEPATH: '1', TSX_TSCONFIG_PATH: devNull, ...declared };
}
