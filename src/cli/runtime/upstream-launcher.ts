/*
 * A stdio upstream starts in the workspace (a relative path of its arguments,
 * `server-filesystem .`, means the workspace), and two common launchers look
 * there first for the code they run. npx, and `npm exec`, take a package from
 * the `node_modules` of the nearest folder holding one or a `package.json`
 * (and read that folder's `.npmrc`) over the one the operator named; `python
 * -m` puts the working directory first on the module path. A repository that
 * ships `node_modules/@modelcontextprotocol/server-filesystem`, or a folder
 * `mcp_server_git`, had `toolgate serve` run its own code at start, outside
 * any sandbox, with nobody asked (`test/attack-upstream-launcher.test.ts`).
 * The executable itself is already looked up on a fixed system PATH only;
 * this keeps the workspace from choosing the code the launcher runs.
 */

/** npm's option fixing the folder npx takes local packages and a project `.npmrc` from. */
const PREFIX_OPTION = /^--prefix(?:=|$)/;

/**
 * The arguments of a stdio upstream: for npx and `npm exec` (`npm x`), the
 * option `--prefix` naming `neutral`, a folder of the gateway's own outside
 * the workspace, unless the operator gave one. npx then runs the package from
 * its cache or the registry, by the name the configuration gives.
 */
export function launcherArgs(command: string, args: readonly string[], neutral: string): string[] {
  // Its last segment by either separator: a Windows configuration names `C:\node\npx.cmd`.
  const name = (command.split(/[\\/]/).pop() ?? command).replace(/\.(?:cmd|exe)$/i, '');
  const npmExec = name === 'npx' || (name === 'npm' && (args[0] === 'exec' || args[0] === 'x'));
  if (!npmExec || args.some((arg) => PREFIX_OPTION.test(arg))) return [...args];
  const prefix = `--prefix=${neutral}`;
  return name === 'npx' ? [prefix, ...args] : [args[0] as string, prefix, ...args.slice(1)];
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
