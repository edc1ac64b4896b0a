/*
 * A stdio upstream starts in the workspace (a relative path of its arguments,
 * `server-filesystem .`, means the workspace), and the common launchers look
 * there first for the code they run. npx, and `npm exec`, take a package from
 * the `node_modules` of the nearest folder holding one or a `package.json`
 * (and read that folder's `.npmrc`) over the one the operator named; `pnpm
 * dlx` and `pnpx` read the workspace's `.npmrc`, whose `registry` then
 * chooses the code that runs; `bunx` runs the workspace's `node_modules/.bin`
 * ahead of the package it names; `python -m` puts the working directory first
 * on the module path. A repository that ships
 * `node_modules/@modelcontextprotocol/server-filesystem`, or a folder
 * `mcp_server_git`, had `toolgate serve` run its own code at start, outside
 * any sandbox, with nobody asked (`test/attack-upstream-launcher.test.ts`).
 * The executable itself is already looked up on a fixed system PATH only;
 * this keeps the workspace from choosing the code the launcher runs.
 */

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
export function launcherArgs(command: string, args: readonly string[], neutral: string): string[] {
  const name = launcherName(command);
  const npmExec = name === 'npx' || (name === 'npm' && (args[0] === 'exec' || args[0] === 'x'));
  if (npmExec && !args.some((arg) => PREFIX_OPTION.test(arg))) {
    const prefix = `--prefix=${neutral}`;
    return name === 'npx' ? [prefix, ...args] : [args[0] as string, prefix, ...args.slice(1)];
  }
  if (name === 'pnpm' && subcommandOf(args) === 'dlx' && !args.some((arg) => DIR_OPTION.test(arg))) return [`--dir=${neutral}`, ...args];
  return [...args];
}

/**
 * Why toolgate will not start a launcher that lets the workspace choose its
 * code and that it cannot keep from doing so, or undefined for any other
 * command: `pnpx`, which takes no `--dir` ahead of its package, and `bunx`
 * (or `bun x`), whose only way out of the workspace's `node_modules/.bin`,
 * `--cwd`, starts the server elsewhere too.
 */
export function refusedLauncher(command: string, args: readonly string[]): string | undefined {
  const name = launcherName(command);
  if (name === 'pnpx') return "pnpx reads the workspace's .npmrc, whose registry a repository sets to choose the code it runs: write the command as pnpm dlx, which toolgate starts with --dir naming a folder of its own";
  if (name === 'bunx' || (name === 'bun' && subcommandOf(args) === 'x')) {
    return "bunx runs the workspace's node_modules/.bin ahead of the package it names, and a repository ships its own copy there: start the server with npx or pnpm dlx, which toolgate keeps to the package named, or by the path of an installed copy";
  }
  return undefined;
}

/** The command a pnpm or bun command line runs: their own options come before it, so the first argument that is not one. */
function subcommandOf(args: readonly string[]): string | undefined {
  return args.find((arg) => !arg.startsWith('-'));
}

/** A command's executable name: its last segment by either separator (a Windows configuration names `C:\node\npx.cmd`), without `.cmd` or `.exe`. */
function launcherName(command: string): string {
  return (command.split(/[\\/]/).pop() ?? command).replace(/\.(?:cmd|exe)$/i, '');
}

/**
 * The environment a stdio upstream is declared with, and `PYTHONSAFEPATH=1`
 * under it: Python (3.11 and later) then leaves the working directory off the
 * module path of `python -m`. A server that is meant to run from the
 * workspace's own sources says so with `PYTHONPATH` in its `env`, which
 * Python still reads; a declared `PYTHONSAFEPATH` wins.
 */
export function launcherEnv(declared: Readonly<Record<string, string>> | undefined): Record<string, string> {
  return { PYTHONSAFEPATH: '1', ...declared };
}
