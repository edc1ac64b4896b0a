/*
 * The programs toolgate refuses to start as a stdio upstream, by what they
 * are (`launcherOf` in `launcher-of.ts`), and the runtimes it starts
 * only on conditions: each reads the folder it starts in, the workspace, a
 * repository's to write, and runs what it finds there, at `toolgate serve`
 * start, outside any sandbox, with nobody asked.
 */

import { realpathSync } from 'node:fs';
import { isAbsolute, normalize } from 'node:path';

type Env = Readonly<Record<string, string>>;

/**
 * Commands that start another, whose command line toolgate would have to read
 * to judge, and does not: name the command they start directly. A wrapper
 * found later among the arguments of a command toolgate does not know counts
 * too (`wrappedLauncher`).
 */
export const WRAPPERS = new Set([
  ...['nice', 'nohup', 'setsid', 'timeout', 'stdbuf', 'ionice', 'taskset', 'chrt', 'sudo', 'doas', 'su', 'runuser', 'xargs', 'script', 'unbuffer'],
  ...['prlimit', 'setpriv', 'flock', 'unshare', 'setarch', 'linux32', 'linux64', 'x86_64', 'i386', 'fakeroot', 'dbus-run-session', 'ssh-agent', 'chroot', 'sg', 'watch', 'choom'],
  ...['strace', 'ltrace', 'valgrind', 'gdb', 'bwrap', 'firejail', 'proot', 'systemd-run', 'time', 'ld.so', 'capsh', 'nsenter', 'uclampset', 'start-stop-daemon', 'runcon', 'chpst'],
  ...['numactl', 'cgexec', 'trickle', 'torsocks', 'proxychains', 'proxychains4', 'faketime', 'xvfb-run', 'dbus-launch', 'pkexec', 'busybox', 'toybox', 'ip', 'arch', 'caffeinate', 'sandbox-exec'],
  ...['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'cmd', 'powershell', 'pwsh'],
]);

/**
 * The shells among them. A script whose `#!` line names one runs as a
 * program of its own, as a compiled program does: toolgate judges it as one
 * (by the launchers among its arguments), not by what the shell reads.
 */
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish']);

const PYTHON_PROJECT = "reads the workspace's pyproject.toml and runs its virtualenv (.venv), whose python and .pth files are the repository's: name the server's interpreter by its path";
const RUST = "reads the workspace's .cargo/config.toml and rust-toolchain.toml, which name a runner and a toolchain that run in place of the server: build the server and name its program by its path";
const JVM_BUILD = "reads the workspace's build (.mvn/jvm.config, gradle.properties, its build scripts) and runs what it names: build the server and start it with java -jar";
const VERSION_MANAGER = "picks the program by the workspace's .tool-versions, mise.toml, .node-version or package.json, and runs the scripts they name: name the program by the path of an installed copy";

/**
 * Launchers toolgate cannot keep from running what the workspace holds, by
 * any of their commands, with why: pipx runs `__pypackages__` of the folder
 * it starts in ahead of the package it names; cargo and rustup's proxies
 * read `.cargo/config.toml` and `rust-toolchain.toml`; the Python project
 * runners run the workspace's own virtualenv (`poetry run python` ran a
 * planted `.venv/bin/python`); Bundler evaluates the workspace's `Gemfile`,
 * which is Ruby; the JVM and Elixir build tools run the project's build; the
 * version managers (mise ran a `.mise.toml`'s `_.source` script, trusted on
 * its own when not interactive) choose the program from the workspace.
 */
export const UNHELD_LAUNCHERS = new Map<string, string>([
  ['pipx', "pipx runs the app of the workspace's __pypackages__ folder ahead of the package it names: install the server (pipx install) and name its program by its path, or start it with uvx"],
  ...['cargo', 'rustc', 'rustup', 'rustdoc', 'cargo-clippy', 'clippy-driver', 'rustfmt', 'cargo-fmt', 'rust-analyzer'].map((name): [string, string] => [name, `${name} ${RUST}`]),
  ...['poetry', 'pipenv', 'pdm', 'hatch', 'rye', 'pixi'].map((name): [string, string] => [name, `${name} ${PYTHON_PROJECT}`]),
  ...['bundle', 'bundler'].map((name): [string, string] => [name, `${name} evaluates the workspace's Gemfile, which is Ruby code: start the server with ruby and declare an absolute BUNDLE_GEMFILE in env if it needs its gems set up`]),
  ['rake', "rake imports the workspace's rakelib/*.rake, whatever -f names, which is Ruby code: start the server with ruby"],
  ...['mvn', 'mvnw', 'gradle', 'gradlew', 'sbt', 'lein', 'mix'].map((name): [string, string] => [name, `${name} ${JVM_BUILD}`]),
  ...['mise', 'rtx', 'asdf', 'volta', 'volta-shim'].map((name): [string, string] => [name, `${name} ${VERSION_MANAGER}`]),
]);

/**
 * Programs that read the folder they start in and run what it says:
 * development runners (nodemon.json's events, vite's and tsm's config,
 * ts-node's tsconfig.json), and programs that start a command with the
 * workspace's `.env` loaded (its `NODE_OPTIONS`, or `LD_PRELOAD`, runs the
 * workspace's code in any server) or run its `.env.js` (env-cmd); with them,
 * programs that start a command line toolgate does not read (cross-env,
 * concurrently). Refused as the command and as the package a package runner
 * starts.
 */
export const READS_THE_WORKSPACE = new RegExp(
  `^(?:${[
    'nodemon', 'vite-node', 'ts-node(?:-esm)?', 'ts-node-dev', 'tsnd', '@babel/node', 'babel-node', 'esno', 'esrun', 'jiti', 'tsimp', 'swc-node', 'tsm', 'esbuild-runner', 'esr', 'sucrase-node', 'tsc-watch',
    'dotenv', 'dotenv-cli', 'dotenvx', '@dotenvx/dotenvx', 'env-cmd', 'cross-env(?:-shell)?', 'concurrently', 'npm-run-all2?', 'run-[ps]',
  ].join('|')})(?:@[^/]*)?$`,
);

/**
 * The first entry of java's class path on its command line (`-cp`, `--class-path`, `-classpath`) that is the working
 * folder: empty, relative, or under `/proc`; a declared `CLASSPATH` is judged with the other search paths (`searchPathRefusal`).
 */
function classPathEntryInWorkingFolder(args: readonly string[]): string | undefined {
  const at = args.findIndex((arg) => arg === '-cp' || arg === '-classpath' || arg === '--class-path');
  const given = at === -1 ? args.find((arg) => arg.startsWith('--class-path='))?.slice('--class-path='.length) : args[at + 1];
  return given?.split(':').find((entry) => !outsideWorkingFolder(entry));
}

/** A search path's entries: absolute, none the working folder (`.`, `./`, an empty entry), none the default (`;;`, which holds `./?.lua`). */
const holdsOnlyAbsolute = (value: string | undefined, separator: string): boolean =>
  value !== undefined && !value.includes(`${separator}${separator}`) && value.split(separator).every((entry) => outsideWorkingFolder(entry));

/**
 * Why a runtime that reads modules from the working folder first is refused,
 * unless what it needs is declared: Lua's default `package.path` and
 * `package.cpath` end in `./?.lua` and `./?.so` (a planted `cjson.lua` ran
 * in place of `lua-cjson`), unless `LUA_PATH` and `LUA_CPATH` (or their
 * `_5_x` forms, each) name absolute folders only; PHP, whose `include_path`
 * begins with `.` (a planted `Psr/Log/autoload.php` ran) and which falls
 * back to the working folder for a file not found on it, whatever it says;
 * java given a class path with an entry in the working folder (empty,
 * relative, under `/proc`); `ruby -rbundler/setup` (also in `RUBYOPT`)
 * evaluates the workspace's `Gemfile`, unless a `BUNDLE_GEMFILE` outside it
 * is declared; `R CMD` restores the workspace's `.RData` and runs its
 * `.First()`. Undefined for any other command.
 */
export function runtimeRefusal(launcher: string, args: readonly string[], declaredEnv: Env): string | undefined {
  if (launcher === 'lua') {
    // A Lua reads LUA_PATH_5_x of its own version before LUA_PATH: the plain forms must be declared, and every form declared
    // must hold absolute folders only, whichever version runs.
    const versioned = Object.entries(declaredEnv).filter(([name]) => /^LUA_C?PATH_\d+_\d+$/.test(name)).map(([, value]) => value);
    if (![declaredEnv.LUA_PATH, declaredEnv.LUA_CPATH, ...versioned].every((value) => holdsOnlyAbsolute(value, ';'))) {
      return "lua looks for a module in the working folder (./?.lua, ./?.so), the workspace, where a repository ships its own: declare LUA_PATH, LUA_CPATH and each of their LUA_PATH_5_x forms in env, naming absolute folders only";
    }
  }
  if (launcher === 'php') {
    return "php includes a file it does not find on its include_path from the working folder, the workspace, whatever the include_path says: toolgate does not start a PHP server";
  }
  const classPathEntry = launcher === 'java' ? classPathEntryInWorkingFolder(args) : undefined;
  if (classPathEntry !== undefined) return workingFolderRefusal('java -cp', classPathEntry);
  const agent = launcher === 'java' ? jvmOptionPaths(args).find((path) => !outsideWorkingFolder(path)) : undefined;
  if (agent !== undefined) return workingFolderRefusal('java -javaagent', agent);
  if (launcher === 'ruby' && [...args, ...(declaredEnv.RUBYOPT ?? '').split(/\s+/)].some((arg) => /^-r\s*bundler(?:\/setup)?$|^bundler(?:\/setup)?$/.test(arg)) && !outsideWorkingFolder(declaredEnv.BUNDLE_GEMFILE ?? '')) {
    return "ruby -rbundler/setup evaluates the workspace's Gemfile, which is Ruby code: declare an absolute BUNDLE_GEMFILE in env";
  }
  if (launcher === 'ruby' || launcher === 'perl') {
    // Both read the switches of a script's `#!` line again themselves, which the kernel passed as one argument.
    const entry = includePaths(args.flatMap((arg) => (arg.startsWith('-') ? arg.split(/[ \t]+/) : [arg]))).find((path) => !outsideWorkingFolder(path));
    if (entry !== undefined) return workingFolderRefusal(`${launcher} -I`, entry);
  }
  if (launcher === 'r' && args[0]?.toUpperCase() === 'CMD') return "R CMD restores the workspace's .RData and runs its .First(): start the server with Rscript";
  return undefined;
}

/**
 * Variables naming where a program looks for code, or for the files that
 * say what code it runs, each with how its entries are separated: the
 * programs it starts (`PATH`: spawn looks the server's command up on the
 * PATH it is given, and a declared `node_modules/.bin` ran the workspace's
 * npx in place of npx), shared libraries (`LD_LIBRARY_PATH`, `LD_PRELOAD`,
 * `LD_AUDIT`), each runtime's module path, and the home and configuration
 * folders and files a launcher reads (a relative `HOME` is the workspace's
 * dotfiles, whose `.npmrc` chooses the registry). npm reads its
 * `npm_config_` variables in any case.
 */
const SEARCH_PATHS: readonly (readonly [RegExp, RegExp])[] = [
  [/^(?:PATH|LD_AUDIT|PYTHONPATH|NODE_PATH|RUBYLIB|GEM_PATH|PERL5LIB|PERLLIB|ERL_LIBS|R_LIBS(?:_USER|_SITE)?|GOPATH|CLASSPATH)$/, /:/],
  // glibc splits the library path at `;` too, and the preload list at blanks.
  [/^LD_LIBRARY_PATH$/, /[:;]/],
  [/^LD_PRELOAD$/, /[: \t]/],
  [/^(?:HOME|XDG_(?:CONFIG|DATA|CACHE|STATE)_HOME|PYTHONHOME|PYTHONUSERBASE|PYTHONPYCACHEPREFIX|PIP_CONFIG_FILE|UV_CONFIG_FILE|GEM_HOME|BUNDLE_GEMFILE|DENO_DIR|BUN_INSTALL|R_ENVIRON(?:_USER)?|R_PROFILE(?:_USER)?|BASH_ENV|ENV)$/, /$^/],
  [/^npm_config_(?:userconfig|globalconfig|prefix|cache|script[-_]shell)$/i, /$^/],
];

/**
 * Why a declared variable of `SEARCH_PATHS` is refused, or undefined: an
 * entry that is empty or relative names the working folder, the workspace,
 * where a repository ships its own code under the name looked for. The
 * operator's own folders are named by their absolute paths.
 */
export function searchPathRefusal(declaredEnv: Env): string | undefined {
  for (const [name, value] of Object.entries(declaredEnv)) {
    const separator = SEARCH_PATHS.find(([names]) => names.test(name))?.[1];
    if (separator === undefined) continue;
    const entries = value.split(separator);
    const entry = name === 'LD_PRELOAD' ? entries.find((path) => path !== '' && !outsideWorkingFolder(path)) : entries.find((path) => !outsideWorkingFolder(path));
    if (entry !== undefined) return workingFolderRefusal(name, entry);
  }
  return optionPathRefusal(declaredEnv);
}

/**
 * An absolute path that is not the working folder by another name: none of
 * the folders on its way, links followed, is under `/proc` (`/proc/self/cwd`,
 * `/usr/../proc/self/cwd`, `/dev/fd/../cwd`, since `/dev/fd` links to
 * `/proc/self/fd`).
 */
function outsideWorkingFolder(path: string): boolean {
  if (!isAbsolute(path)) return false;
  let prefix = '';
  for (const part of path.split('/').filter((name) => name !== '')) {
    prefix = `${prefix}/${part}`;
    if (UNDER_PROC.test(normalize(prefix)) || UNDER_PROC.test(realOrSame(prefix))) return false;
  }
  return true;
}

const UNDER_PROC = /^\/proc(?:\/|$)/;

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function workingFolderRefusal(name: string, entry: string): string {
  const what = entry === '' ? 'an empty entry, which is the working folder' : `${entry.length > 80 ? `${entry.slice(0, 80)}…` : entry}, which is ${isAbsolute(entry) ? 'the working folder by another name' : 'relative to the working folder'}`;
  return `${name} holds ${what} (the workspace), where a repository ships its own code under the names looked for: name absolute folders and files only`;
}

/**
 * Why a declared variable of options names a file or folder of the working
 * folder, or undefined: Ruby's and Perl's `-I` (`RUBYOPT`, `PERL5OPT`) and
 * a `-r` by path, the JVM's agents and boot class path (`JAVA_TOOL_OPTIONS`
 * and its kin, read by every java), and a Lua start-up file (`LUA_INIT` as
 * `@file`).
 */
function optionPathRefusal(declaredEnv: Env): string | undefined {
  for (const [name, value] of Object.entries(declaredEnv)) {
    const paths = /^(?:RUBYOPT|PERL5OPT)$/.test(name)
      ? includePaths(value.split(/\s+/))
      : /^(?:JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS)$/.test(name)
        ? jvmOptionPaths(value.split(/\s+/))
        : /^LUA_INIT(?:_\d+_\d+)?$/.test(name) && value.startsWith('@')
          ? [value.slice(1)]
          : [];
    const entry = paths.find((path) => !outsideWorkingFolder(path));
    if (entry !== undefined) return workingFolderRefusal(name, entry);
    // Perl puts the working folder on its module path again under this variable.
    if (name === 'PERL_USE_UNSAFE_INC' && value !== '' && value !== '0') return workingFolderRefusal(name, '.');
  }
  return undefined;
}

/** The files the JVM's options load as agents, or put on its boot class path (`-javaagent:x.jar=opts`, `-agentpath:`, `-Xbootclasspath/a:`). */
function jvmOptionPaths(options: readonly string[]): string[] {
  return options.flatMap((option) => /^-(?:javaagent|agentpath):([^=]+)|^-Xbootclasspath\/[ap]:(.+)$/.exec(option)?.slice(1, 3).filter((path) => path !== undefined).flatMap((path) => path.split(':')) ?? []);
}

/**
 * The folders a Ruby or Perl command line adds to its module path, up to its
 * program: `-I dir`, `-Idir`, and in a cluster of switches (`-wIlib`);
 * Perl's `-Mlib=a,b`; and a file Ruby requires by a relative path (`-r ./x`;
 * `-rbundler/setup` is a name). The code of `-e` is skipped, and the
 * switches after it still read.
 */
function includePaths(args: readonly string[]): string[] {
  const paths: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '' || arg.startsWith('--')) continue;
    if (!arg.startsWith('-')) break;
    for (let at = 1; at < arg.length; at += 1) {
      const flag = arg[at] as string;
      if (!'IrMmeE'.includes(flag)) continue;
      const value = at + 1 < arg.length ? arg.slice(at + 1) : (args[(index += 1)] ?? '');
      if (flag === 'I') paths.push(value);
      else if (flag === 'r' && /^\.{1,2}\//.test(value)) paths.push(value);
      else if (flag === 'M' || flag === 'm') paths.push(...(/^-?lib=(.*)$/.exec(value)?.[1]?.split(',') ?? []));
      break;
    }
  }
  return paths;
}
