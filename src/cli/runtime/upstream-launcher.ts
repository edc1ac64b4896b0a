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
 * makes the workspace's own project ready first, running its build backend;
 * node resolves a module it loads first by name (`--import tsx`) from the
 * workspace's `node_modules`; corepack starts the package manager the
 * workspace's `package.json` names.
 * A repository that ships
 * `node_modules/@modelcontextprotocol/server-filesystem`, or a folder
 * `mcp_server_git`, had `toolgate serve` run its own code at start, outside
 * any sandbox, with nobody asked (`test/attack-upstream-launcher.test.ts`).
 * The executable itself is already looked up on a fixed system PATH only;
 * this keeps the workspace from choosing the code the launcher runs.
 */
import { devNull } from 'node:os';
import { barePreload, bunArgs, denoArgs, denoCommand, envCommandIndex, nodeLauncherScript, nodeOptionsArgs, npmRunsPackage, pnpmRunsPackage, pythonArgs, runsUvProject, startsYarn } from './launcher-command-lines.js';

/**
 * The arguments of a stdio upstream. npx and `npm exec` are given `--prefix`
 * naming `neutral`, a folder of the gateway's own outside the workspace, and
 * `pnpm dlx` is given `--dir` naming it, each ahead of every other argument:
 * npm and pnpm take the last of an option given twice, so a prefix or folder
 * the operator gave still wins, and one among the server's own arguments
 * (after the package, where npx reads none) does not keep the gateway's
 * away. npx then runs the package from its cache or the registry, by the
 * name the configuration gives; pnpm reads its configuration in that
 * folder, and still starts the package in the workspace. deno, bun and
 * Python get the options that keep the workspace's configuration out (see
 * `launcher-command-lines.ts`), and a command started through `env` is read
 * as the command it starts.
 */
export function launcherArgs(command: string, args: readonly string[], neutral: string, declaredEnv: Readonly<Record<string, string>> = {}): string[] {
  const name = launcherName(command);
  const started = startedCommand(name, args);
  if (typeof started === 'object') return [...started.head, ...launcherArgs(started.command, started.args, neutral, declaredEnv)];
  if (name === 'npx' || (name === 'npm' && npmRunsPackage(args))) return [`--prefix=${neutral}`, ...args];
  if (name === 'pnpm' && pnpmRunsPackage(args)) return [`--dir=${neutral}`, ...args];
  if (name === 'deno') return denoArgs(args);
  if (name === 'bun') return bunArgs(args);
  if (PYTHON.test(name)) return pythonArgs(args, declaredEnv);
  return [...args];
}

/** Python's executables: `python3`, `python3.12`, `python3.13t`, `python3.10-dbg`, `pypy3`. */
const PYTHON = /^(?:python|pypy)\d*(?:\.\d+)*t?(?:-dbg)?$/;

/**
 * Why toolgate will not start a launcher that lets the workspace choose its
 * code and that it cannot keep from doing so, or undefined for any other
 * command: `pnpx`, which takes no `--dir` ahead of its package; `bunx` (or
 * `bun x`), whose only way out of the workspace's `node_modules/.bin`,
 * `--cwd`, starts the server elsewhere too; yarn, by any name, which reads
 * the workspace's `.yarnrc.yml` whatever its options say; corepack, which
 * starts the package manager the workspace's `package.json` names; `deno x`
 * (or `dx`), which fails to run most packages under `--no-config`; `uv run`
 * with no folder of the server's own named ahead of `run`; and node loading
 * a module by a bare name before the program, on its command line or in the
 * `NODE_OPTIONS` the configuration declares.
 */
export function refusedLauncher(command: string, args: readonly string[], declaredEnv: Readonly<Record<string, string>> = {}): string | undefined {
  const name = launcherName(command);
  const started = startedCommand(name, args);
  if (started === 'split') return 'env -S splits its string into a command line toolgate does not read: write the command and its arguments out';
  if (started !== undefined) return refusedLauncher(started.command, started.args, declaredEnv);
  if (name === 'pnpx') return "pnpx reads the workspace's .npmrc, whose registry a repository sets to choose the code it runs: write the command as pnpm dlx, which toolgate starts with --dir naming a folder of its own";
  if (name === 'bunx' || (name === 'bun' && firstArgument(args) === 'x')) {
    return "bunx runs the workspace's node_modules/.bin ahead of the package it names, and a repository ships its own copy there: start the server with npx or pnpm dlx, which toolgate keeps to the package named, or by the path of an installed copy";
  }
  const packageRunner = name === 'npx' || name === 'deno' || (name === 'npm' && npmRunsPackage(args)) || (name === 'pnpm' && pnpmRunsPackage(args));
  if (name === 'yarn' || name === 'yarnpkg' || name === 'corepack' || (packageRunner && startsYarn(args))) {
    return "yarn runs the script the workspace's .yarnrc.yml names as its yarnPath in its own place, whatever --cwd says, and loads the plugins it lists, and corepack starts the package manager the workspace's package.json names: start the server with node, npx or pnpm dlx";
  }
  if (name === 'dx' || (name === 'deno' && denoCommand(args) === 'x')) {
    return "deno x reads the workspace's deno.json, package.json and .npmrc, whose import map, node_modules and registry choose the code it runs, and runs few packages without them: write the command as deno run npm:<package>, which toolgate starts with --no-config";
  }
  if (name === 'uv' && runsUvProject(args)) {
    return "uv run installs the workspace's own project first, running its build backend, and reads its uv.toml: name the server's own folder ahead of run (uv --directory /path/to/server run ...), or start the server with uvx";
  }
  const preload = name === 'node' ? (barePreload(args) ?? barePreload(nodeOptionsArgs(declaredEnv.NODE_OPTIONS ?? ''))) : undefined;
  if (preload !== undefined) {
    return `node loads ${preload} from the workspace's node_modules when a repository ships one, ahead of the program: name the module by the path of an installed copy, or start the server with npx (npx tsx for a TypeScript server)`;
  }
  return undefined;
}

/** The first argument of a command line that is not an option. */
function firstArgument(args: readonly string[]): string | undefined {
  return args.find((arg) => !arg.startsWith('-'));
}

/**
 * The command another starts in its place, read as that command: the one
 * `env` starts, after its own options and settings, and a launcher node
 * runs by the path of its script (`node .../npx-cli.js`, read as npx, the
 * script's path kept as it was written), with the arguments up to it as
 * written (`head`) and its own after; undefined for any other command;
 * `split` for `env -S`, which splits a string into a command line.
 */
function startedCommand(name: string, args: readonly string[]): { readonly head: readonly string[]; readonly command: string; readonly args: readonly string[] } | 'split' | undefined {
  if (name === 'node') {
    const script = nodeLauncherScript(args);
    return script === undefined ? undefined : { head: args.slice(0, script.at + 1), command: script.launcher, args: args.slice(script.at + 1) };
  }
  if (name !== 'env') return undefined;
  const at = envCommandIndex(args);
  if (at === undefined) return 'split';
  if (at === -1) return undefined;
  return { head: args.slice(0, at + 1), command: args[at] as string, args: args.slice(at + 1) };
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
 * and `npx tsx` alike); and `COREPACK_ENABLE_PROJECT_SPEC=0` with
 * `COREPACK_ENV_FILE=0`: a pnpm that is corepack's shim then starts the
 * version corepack would start anywhere, not the one the `packageManager` of
 * the workspace's `package.json` names (a URL there is code of the
 * repository's choosing), and reads no `.corepack.env` of the workspace. A
 * server that is meant to run from the workspace's own sources says so with
 * `PYTHONPATH` or `TSX_TSCONFIG_PATH` in its `env`; a declared value wins.
 */
export function launcherEnv(declared: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return { PYTHONSAFEPATH: '1', TSX_TSCONFIG_PATH: devNull, COREPACK_ENABLE_PROJECT_SPEC: '0', COREPACK_ENV_FILE: '0', ...declared };
}
