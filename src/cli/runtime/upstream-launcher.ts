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
import { readFileSync, statSync } from 'node:fs';
import { devNull } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import { NPM_SCRIPT_SHELL_FILE } from './npm-script-shell.js';
import { READS_THE_WORKSPACE, runtimeRefusal, searchPathRefusal, SHELLS, UNHELD_LAUNCHERS, WRAPPERS } from './programs-that-read-the-workspace.js';
import { programOf, scriptOf, type ScriptInterpreter } from './script-interpreter.js';
import { KNOWN_LAUNCHERS, launcherOf, resolvedFile, searchPathOf } from './launcher-of.js';
import {
  barePreload,
  codeOf,
  bunArgs,
  denoArgs,
  denoCommand,
  envAssignments,
  envCommandIndex,
  evaluatesCode,
  nodeEnvFiles,
  nodeLauncherScript,
  nodeOptionsInEnvFile,
  nodeOptionName,
  nodeOptionsPreload,
  npmNodeOptions,
  npmRunsPackage,
  pnpmRunsPackage,
  pythonArgs,
  runsUvProject,
  launcherPackage,
} from './launcher-command-lines.js';

type Env = Readonly<Record<string, string>>;

/**
 * The arguments of a stdio upstream. npx and `npm exec` are given `--prefix`
 * naming `neutral`, a folder of the gateway's own outside the workspace, and
 * `--script-shell` naming the shell there that keeps the workspace's
 * `node_modules/.bin` off the package command's PATH (`writeNpmScriptShell`),
 * `pnpm dlx` is given `--dir` naming it, each ahead of every other argument:
 * npm and pnpm take the last of an option given twice, so a prefix or folder
 * the operator gave still wins, and one among the server's own arguments
 * (after the package, where npx reads none) does not keep the gateway's
 * away. npx then runs the package from its cache or the registry, by the
 * name the configuration gives; pnpm reads its configuration in that
 * folder, and still starts the package in the workspace. deno, bun and
 * Python get the options that keep the workspace's configuration out (see
 * `launcher-command-lines.ts`), and a command started through `env`, or a
 * launcher node runs by its script, is read as the command it starts. A
 * launcher is known by what it is (`launcherOf`), not by how it was named.
 */
export function launcherArgs(command: string, args: readonly string[], neutral: string, declaredEnv: Env = {}): string[] {
  const searchPath = searchPathOf(declaredEnv);
  const launcher = launcherOf(command, searchPath);
  const started = startedCommand(launcher, args, searchPath);
  if (typeof started === 'object') return [...started.head, ...launcherArgs(started.command, started.args, neutral, { ...declaredEnv, ...started.env })];
  if (launcher === 'npx' || (launcher === 'npm' && npmRunsPackage(args))) return [`--prefix=${neutral}`, `--script-shell=${join(neutral, NPM_SCRIPT_SHELL_FILE)}`, ...args];
  if (launcher === 'pnpm' && pnpmRunsPackage(args)) return [`--dir=${neutral}`, ...args];
  if (launcher === 'deno') return denoArgs(args);
  if (launcher === 'bun') return bunArgs(args);
  if (launcher === 'python') return pythonArgs(args);
  // R (not Rscript) restores the working folder's .RData, and runs its .First(), unless told not to.
  if (launcher === 'r') return ['--no-restore', ...args];
  return [...args];
}

/**
 * Why toolgate will not start a launcher that lets the workspace choose its
 * code and that it cannot keep from doing so, or undefined for any other
 * command: `pnpx`, which takes no `--dir` ahead of its package; `bunx` (or
 * `bun x`), whose only way out of the workspace's `node_modules/.bin`,
 * `--cwd`, starts the server elsewhere too; yarn, by any name, which reads
 * the workspace's `.yarnrc.yml` whatever its options say; corepack, which
 * starts the package manager the workspace's `package.json` names; `deno x`
 * (or `dx`), which fails to run most packages under `--no-config`; `uv run`
 * with no folder of the server's own named ahead of `run`; a module loaded
 * by a bare name ahead of node's program, on its command line or in a
 * declared `NODE_OPTIONS` (every launcher of npm's, pnpm's and yarn's is
 * node); a shell or other wrapper, whose command toolgate does not read; a
 * declared search path with an entry of the workspace (`searchPathRefusal`);
 * and a script named as the command, judged by the program its `#!` line
 * starts (`scriptRefusal`, with `depth` the scripts on the way).
 */
export function refusedLauncher(command: string, args: readonly string[], declaredEnv: Env = {}, depth = 0): string | undefined {
  // node reads NODE_OPTIONS, npm hands npm_config_node_options (`-` or `_`) to what it runs as NODE_OPTIONS, and bun
  // reads BUN_OPTIONS as its own command line.
  for (const [name, value] of Object.entries(declaredEnv)) {
    const preload = /^(?:NODE_OPTIONS|npm_config_node[-_]options|BUN_OPTIONS)$/i.test(name) ? nodeOptionsPreload(value) : undefined;
    if (preload !== undefined) return preloadRefusal(preload, name);
  }
  const relative = searchPathRefusal(declaredEnv);
  if (relative !== undefined) return relative;
  const searchPath = searchPathOf(declaredEnv);
  const launcher = launcherOf(command, searchPath);
  if (WRAPPERS.has(launcher)) return `${launcher} starts a command line toolgate does not read: name the command it starts directly`;
  if (!KNOWN_LAUNCHERS.has(launcher)) {
    const wrapped = wrappedLauncher(args, searchPath);
    if (wrapped !== undefined) {
      return `${launcher} starts ${wrapped}, a launcher toolgate does not read through a command it does not know (an argument of the server's that reads as a launcher's name counts too: write it with its option, --lang=${wrapped}): name the launcher as the command`;
    }
    const script = scriptRefusal(command, args, declaredEnv, depth) ?? scriptArgumentRefusal(command, args, declaredEnv, depth);
    if (script !== undefined) return script;
  }
  const started = startedCommand(launcher, args, searchPath);
  if (started === 'unread') return "env is given an option toolgate does not read (only -C DIR, -v, -0 and -- are; -i and -u would take off what toolgate sets for the command): write the command and its arguments out, and declare its environment in env";
  // node, and what starts a program under node's options or options like them: tsx (also through a package runner), bun and deno.
  const judged = started === undefined ? args : started.head;
  const nodeLike = launcher === 'node' || launcher === 'tsx' || launcher === 'bun' || launcher === 'deno' || ((launcher === 'npx' || launcher === 'npm' || launcher === 'pnpm') && judged.some((arg) => /^tsx(?:@.*)?$/.test(arg)));
  const preload = nodeLike ? barePreload(judged) : undefined;
  if (preload !== undefined) return preloadRefusal(preload, 'its command line');
  const envFile = nodeLike ? envFileRefusal(launcher, judged) : undefined;
  if (envFile !== undefined) return envFile;
  if ((launcher === 'node' || launcher === 'bun') && evaluatesCode(judged)) {
    return `${launcher} -e, -p, --eval and --print run code that loads packages by name from the working folder's node_modules (the workspace's): put the code in a file and name it by its path`;
  }
  const coded = launcher === 'perl' || launcher === 'ruby' || launcher === 'python' ? wrappedLauncher(codeOf(args, launcher === 'python' ? 'c' : 'eE'), searchPath) : undefined;
  if (coded !== undefined) return `${launcher}'s code starts ${coded}, a launcher toolgate does not read there: name the launcher as the command`;
  if (launcher === 'node' && judged.some((arg) => /^--experimental-(?:default-)?config-file(?:=|$)/.test(nodeOptionName(arg)))) {
    return "node --experimental-config-file and --experimental-default-config-file read node's options from a file (the workspace's node.config.json), which can load its code first: give the options on the command line";
  }
  if (launcher === 'deno' && judged.some((arg) => /^--(?:node-modules-dir(?!=none$)|vendor)(?:=|$)/.test(arg))) {
    return "deno --node-modules-dir and --vendor take the packages of the server from the workspace's node_modules and vendor folders: leave them out, or use --node-modules-dir=none";
  }
  if (started !== undefined) {
    // `env NAME=value` would set what toolgate sets for the command after it does (ERL_AFLAGS lost its flag).
    const overridden = Object.keys(started.env).find((name) => name in launcherEnv(undefined));
    if (overridden !== undefined) return `env sets ${overridden}, which toolgate sets for the command itself: declare it in the server's env, where toolgate reads it`;
    return refusedLauncher(started.command, started.args, { ...declaredEnv, ...started.env }, depth);
  }
  if (launcher === 'pnpx') return "pnpx reads the workspace's .npmrc, whose registry a repository sets to choose the code it runs: write the command as pnpm dlx, which toolgate starts with --dir naming a folder of its own";
  if (launcher === 'bunx' || (launcher === 'bun' && args.find((arg) => !arg.startsWith('-')) === 'x')) {
    return "bunx runs the workspace's node_modules/.bin ahead of the package it names, and a repository ships its own copy there: start the server with npx or pnpm dlx, which toolgate keeps to the package named, or by the path of an installed copy";
  }
  if (launcher === 'bun' && bunRunsName(args)) {
    return "bun run <name> (and bun <name>) runs the workspace's package.json script or node_modules/.bin of that name first: name the server's file by its path";
  }
  if ((launcher === 'npx' || (launcher === 'npm' && npmRunsPackage(args))) && npmRunsCommandLine(args)) {
    return `${launcher} -c runs a command line through a shell, with the workspace's node_modules/.bin first: name the package and its arguments instead (a -c of the server's own goes after --)`;
  }
  // A refused runner started by its interpreter (`python3 -m pipenv`, `python3 /usr/bin/poetry`, `ruby -S bundle`, `elixir … -S mix`).
  const interpreted = ['python', 'ruby', 'elixir', 'iex'].includes(launcher) ? interpretedRunner(args, searchPath) : undefined;
  const unheld = UNHELD_LAUNCHERS.get(interpreted ?? launcher) ?? runtimeRefusal(launcher, args, declaredEnv);
  if (unheld !== undefined) return unheld;
  const packageRunner = launcher === 'npx' || launcher === 'deno' || (launcher === 'npm' && npmRunsPackage(args)) || (launcher === 'pnpm' && pnpmRunsPackage(args));
  const npmOptions = launcher === 'npx' || launcher === 'npm' ? npmNodeOptions(args) : undefined;
  const npmPreload = npmOptions === undefined ? undefined : nodeOptionsPreload(npmOptions);
  if (npmPreload !== undefined) return preloadRefusal(npmPreload, '--node-options');
  const runner = READS_THE_WORKSPACE.test(launcher) ? launcher : packageRunner ? args.find((arg) => READS_THE_WORKSPACE.test(arg.replace(/^--?(?:p|package)=/, ''))) : undefined;
  if (runner !== undefined) {
    return `${runner === launcher ? launcher : `${launcher} starts ${runner}, which`} reads its configuration or the workspace's .env from the folder it starts in (the workspace), and runs what they name, or starts a command line toolgate does not read: start the server with node or npx tsx, and declare its environment in env`;
  }
  const inner = packageRunner ? launcherPackage(args) : undefined;
  if (inner !== undefined && !/yarn|corepack/.test(inner)) {
    return `${launcher} starts ${inner}, a launcher toolgate does not read through another (an argument of the server's that reads as a launcher's name counts too): name it as the command`;
  }
  if (launcher === 'yarn' || launcher === 'corepack' || inner !== undefined) {
    return "yarn runs the script the workspace's .yarnrc.yml names as its yarnPath in its own place, whatever --cwd says, and loads the plugins it lists, and corepack starts the package manager the workspace's package.json names: start the server with node, npx or pnpm dlx";
  }
  if (launcher === 'dx' || (launcher === 'deno' && denoCommand(args) === 'x')) {
    return "deno x reads the workspace's deno.json, package.json and .npmrc, whose import map, node_modules and registry choose the code it runs, and runs few packages without them: write the command as deno run npm:<package>, which toolgate starts with --no-config";
  }
  if (launcher === 'uv' && runsUvProject(args)) {
    return "uv run installs the workspace's own project first, running its build backend, and reads its uv.toml: name the server's own folder ahead of run (uv --directory /path/to/server run ...), or start the server with uvx";
  }
  return undefined;
}

/** How many scripts deep Linux starts an interpreter that is itself a script (its BINPRM_MAX_RECURSION). */
const MAX_SCRIPT_DEPTH = 4;

/** Any folder: `launcherArgs` is asked only whether it would change the arguments it is given. */
const ANY_FOLDER = '/';

/**
 * Why a script named as the command is refused, or undefined: it is judged
 * as the program its `#!` line starts (`scriptOf`), given what the
 * kernel gives it (the line's argument, the script, the script's own
 * arguments), since its name says nothing of what runs it: a Lua or PHP
 * script had its interpreter look in the working folder first for its
 * modules. A shell's script runs as a program of its own. A launcher
 * toolgate gives options to (npx, deno, `python -m`) gets none through a
 * `#!` line, so is refused there: name it as the command.
 */
function scriptRefusal(command: string, args: readonly string[], declaredEnv: Env, depth: number): string | undefined {
  const script = scriptOf(command, searchPathOf(declaredEnv));
  return script === undefined ? undefined : judgedScript(command, script, args, declaredEnv, depth);
}

/** `scriptRefusal` for a script whose `#!` line is read already. */
function judgedScript(command: string, script: ScriptInterpreter, args: readonly string[], declaredEnv: Env, depth: number): string | undefined {
  const searchPath = searchPathOf(declaredEnv);
  if (depth >= MAX_SCRIPT_DEPTH) return `${command} starts ${script.interpreter} through its #! line, a script more than Linux starts (${MAX_SCRIPT_DEPTH} deep)`;
  const { program, throughEnv } = programOf(script, searchPath);
  // The kernel opens a relative interpreter from the working folder, the workspace (a planted `python3` ran for
  // `#!python3`), and so does env a relative path (`#!/usr/bin/env ./server`); env looks a bare name up on the PATH.
  if (throughEnv ? program.includes('/') && !program.startsWith('/') : !program.startsWith('/')) {
    return `${command} names ${program} on its #! line by a path relative to the working folder (the workspace), where it is looked for: name the interpreter by its absolute path`;
  }
  const programArgs = [...(throughEnv || script.argument === undefined ? [] : [script.argument]), command, ...args];
  if (SHELLS.has(launcherOf(program, searchPath))) return undefined;
  const refused = refusedLauncher(program, programArgs, declaredEnv, depth + 1);
  if (refused !== undefined) return `${command} starts ${program} through its #! line: ${refused}`;
  if (launcherArgs(program, programArgs, ANY_FOLDER, declaredEnv).join('\0') !== programArgs.join('\0')) {
    return `${command} starts ${program} through its #! line, which toolgate cannot give the options it gives ${launcherOf(program, searchPath)}: name ${program} as the command`;
  }
  return undefined;
}

/**
 * Why a script among the arguments of a command toolgate does not know is
 * refused, judged as if it were the command (`scriptRefusal`), or undefined:
 * a wrapper of the operator's (`exec "$@"`), or one no list names, starts
 * it as the kernel would. A script whose `#!` line names the command itself
 * is that interpreter's own program (`tclsh server.tcl`), as when the kernel
 * started the command for it.
 */
function scriptArgumentRefusal(command: string, args: readonly string[], declaredEnv: Env, depth: number): string | undefined {
  const searchPath = searchPathOf(declaredEnv);
  const interpreter = resolvedFile(command, searchPath);
  for (const [at, arg] of args.entries()) {
    if (arg.startsWith('-')) continue;
    const script = scriptOf(arg, searchPath);
    if (script === undefined) continue;
    const named = programOf(script, searchPath).program;
    if (named === command || (interpreter !== undefined && resolvedFile(named, searchPath) === interpreter)) continue;
    const refused = judgedScript(arg, script, args.slice(at + 1), declaredEnv, depth + 1);
    if (refused !== undefined) return `a script among its arguments is refused: ${refused}`;
  }
  return undefined;
}

/**
 * Whether npx or `npm exec` may be asked to run a command line (`-c`,
 * `--call`) rather than a package's command: anywhere before a `--`, since
 * `npm exec` reads its options after the package too.
 */
function npmRunsCommandLine(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '-c' || /^--call(?:=|$)/.test(arg));
}

/** Whether bun runs a name rather than a file: `bun run <name>`, `bun <name>`, where bun looks the name up among the workspace's scripts and binaries first. */
function bunRunsName(args: readonly string[]): boolean {
  const positional = args.filter((arg) => !arg.startsWith('-'));
  const name = positional[0] === 'run' ? positional[1] : positional[0];
  return name !== undefined && name !== 'x' && !/[/\\]|\.[cm]?[jt]sx?$/.test(name);
}

/**
 * Why node's `--env-file` is refused, or undefined: a file named by a
 * relative path is the workspace's (the server starts there), and its
 * `NODE_OPTIONS` would be node's command line; one named by its path is
 * read, and judged as a declared `NODE_OPTIONS` is.
 */
function envFileRefusal(launcher: string, args: readonly string[]): string | undefined {
  for (const file of nodeEnvFiles(args)) {
    if (!isAbsolute(file)) return `${launcher} --env-file names ${file}, a file of the workspace, whose NODE_OPTIONS (or DENO_DIR, or registry) would be the launcher's own: name a file of your own by its path, or declare the variables in env`;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const preload = nodeOptionsPreload(nodeOptionsInEnvFile(text) ?? '');
    if (preload !== undefined) return preloadRefusal(preload, file);
  }
  return undefined;
}

function preloadRefusal(module: string, where: string): string {
  return `node loads ${module} (named in ${where}) from the workspace's node_modules when a repository ships one, ahead of the program: name the module by the path of an installed copy, or start the server with npx (npx tsx for a TypeScript server)`;
}

/**
 * The command another starts in its place, read as that command: the one
 * `env` starts, after its own options and `NAME=value` settings (which join
 * the declared environment), and a launcher node runs by the path of its
 * script (`node .../npx-cli.js`, read as npx); with the arguments up to it as
 * written (`head`) and its own after. Undefined for any other command;
 * `unread` for an `env` option toolgate does not read (`-S` splits a string
 * into a command line).
 */
function startedCommand(launcher: string, args: readonly string[], searchPath: readonly string[]): { readonly head: readonly string[]; readonly command: string; readonly args: readonly string[]; readonly env: Env } | 'unread' | undefined {
  if (launcher === 'node') {
    const script = nodeLauncherScript(args, (arg) => launcherOf(arg, searchPath));
    return script === undefined ? undefined : { head: args.slice(0, script.at + 1), command: script.launcher, args: args.slice(script.at + 1), env: {} };
  }
  if (launcher !== 'env') return undefined;
  const at = envCommandIndex(args);
  if (at === undefined) return 'unread';
  if (at === -1) return undefined;
  return { head: args.slice(0, at + 1), command: args[at] as string, args: args.slice(at + 1), env: envAssignments(args.slice(0, at)) };
}

/**
 * The launcher among the arguments that are no option of a command toolgate
 * does not know, or undefined: `prlimit --nofile=1024 npx`, `flock /tmp/lock
 * npx` and `choom -n 500 -- env npx` start npx, which the rules for npx never
 * saw. Every argument counts, since where a wrapper's own options end is its
 * own to read (`env`, an everyday word, put npx third), and so does every
 * word of an argument that reads as a command line (`capsh -- -c "npx …"`,
 * `git -c 'alias.s=!npx …'`); a folder does not (`/home/me/code/python` is
 * no program).
 */
function wrappedLauncher(args: readonly string[], searchPath: readonly string[]): string | undefined {
  // A shell takes a backslash out of a word (`n\px` runs npx), and a quote or a comma ends one in most languages' code.
  const words = args.flatMap((arg) => (/[\s;&|()'"`!,\\]/.test(arg) ? arg.replace(/\\/g, '').split(/[\s;&|()'"`!=,]+/) : [arg]));
  const positional = words.filter((arg) => arg !== '' && !arg.startsWith('-') && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg) && !isFolder(arg));
  // An everyday word counts as itself only as written: `R`, R's own name, is no word.
  return positional.map((arg) => ({ arg, name: launcherOf(arg, searchPath) })).find(({ arg, name }) => KNOWN_LAUNCHERS.has(name) && !EVERYDAY_WORDS.has(basename(arg)))?.name;
}

function isFolder(arg: string): boolean {
  try {
    return arg.includes('/') && statSync(arg).isDirectory();
  } catch {
    return false;
  }
}

/** The refused runner an interpreter's command line starts by module (`-m X`), by `-S X`, or by the path of its script, or undefined. */
function interpretedRunner(args: readonly string[], searchPath: readonly string[]): string | undefined {
  const named = args.flatMap((arg, index) => (args[index - 1] === '-m' || args[index - 1] === '-S' ? [arg] : /^-[mS]./.test(arg) ? [arg.slice(2)] : [launcherOf(arg, searchPath)]));
  return named.find((name) => UNHELD_LAUNCHERS.has(name));
}

/** Names of programs toolgate knows that are also everyday words a server takes as an argument (`watch`, `time`, `script`). */
const EVERYDAY_WORDS = new Set(['r', 'time', 'watch', 'script', 'nice', 'sg', 'cmd', 'su', 'timeout', 'xargs', 'chroot', 'i386', 'x86_64', 'linux32', 'linux64', 'env', 'ip', 'arch']);


/**
 * The environment a stdio upstream is declared with, and under it
 * `PYTHONSAFEPATH=1`: Python (3.11 and later) then leaves the working
 * directory off the module path of `python -m` (an older one refuses the
 * `-P` of `launcherArgs`, which is given whatever is declared here); and `TSX_TSCONFIG_PATH`
 * naming the null device: tsx, which otherwise reads the `tsconfig.json` of
 * the folder it starts in, then maps no import of the server through the
 * workspace's `paths` (one of `@modelcontextprotocol/sdk/*` named the
 * workspace's file for the server's own import, in `tsx /path/to/server.ts`
 * and `npx tsx` alike); and `COREPACK_ENABLE_PROJECT_SPEC=0` with
 * `COREPACK_ENV_FILE=0`: a pnpm that is corepack's shim then starts the
 * version corepack would start anywhere, not the one the `packageManager` of
 * the workspace's `package.json` names (a URL there is code of the
 * repository's choosing), and reads no `.corepack.env` of the workspace; and
 * `R_ENVIRON_USER` and `R_PROFILE_USER` naming the null device: R and
 * Rscript otherwise run the workspace's `.Rprofile` and read its `.Renviron`
 * (whose `R_TESTS` names a file R runs) before the server; `CLASSPATH`
 * naming it: java's class path is otherwise the working folder, whose
 * planted `META-INF/services` provider a server's `Files.probeContentType`
 * loaded; `BUNDLE_GEMFILE` naming it: Bundler, which a Ruby server loads
 * itself (`require "bundler/setup"`), otherwise evaluates the workspace's
 * `Gemfile`, Ruby code; and in `ERL_AFLAGS` the working folder taken off
 * Erlang's code path. A
 * server that is meant to run from the workspace's own sources says so with
 * `PYTHONPATH` or `TSX_TSCONFIG_PATH` in its `env`; a declared value wins here.
 */
export function launcherEnv(declared: Readonly<Record<string, string>> | undefined): Record<string, string> {
  // Erlang's code path begins with the working folder: a planted crypto.beam ran in escript and elixir. Taken off
  // after what the operator declares, so their flags stay.
  const erlang = [declared?.ERL_AFLAGS, '-eval code:del_path([46])'].filter((flags) => flags !== undefined && flags !== '').join(' ');
  return {
    PYTHONSAFEPATH: '1',
    TSX_TSCONFIG_PATH: devNull,
    COREPACK_ENABLE_PROJECT_SPEC: '0',
    COREPACK_ENV_FILE: '0',
    R_ENVIRON_USER: devNull,
    R_PROFILE_USER: devNull,
    CLASSPATH: devNull,
    BUNDLE_GEMFILE: devNull,
    ...declared,
    ERL_AFLAGS: erlang,
  };
}
