import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { journalFilesOf } from './open-journal-to-read.js';
import { upstreamServerEntries, upstreamServerFiles } from './upstream-server-files.js';
import type { NodeHostOptions } from '../../node/node-host-types.js';
import { policyFilePaths } from '../../node/policy/policy-file.js';
import { prepareOwnFolder } from '../../node/fs/prepare-own-folder.js';
import { CliError } from '../cli-error.js';
import { refuseTrackedState } from './refuse-tracked-state.js';
import type { ResolvedConfig } from '../config/config-types.js';

/** Where the gateway's host spills what it keeps: `runs/` (spilled outputs), `media/`, `bin/`. */
export function gatewaySpillDir(config: ResolvedConfig): string {
  return join(config.workspace, '.toolgate', 'spill');
}

/**
 * The workspace's `.toolgate/`, created when missing: the gateway keeps its
 * journal, remembered rules, MCP pins, spill and tokens there. A repository
 * can ship it as a link (to the user's `~/.config/toolgate`, or to a folder
 * another user owns), and every one of them would be written there instead:
 * the user's own remembered allows dropped and the project's written into the
 * file every workspace trusts. Anything but a folder of this user's that no
 * other user may write refuses the start.
 */
export function prepareGatewayStateFolder(config: ResolvedConfig): string {
  const folder = join(config.workspace, '.toolgate');
  const problem = prepareOwnFolder(folder, true);
  if (problem !== undefined) throw new CliError('config', `${folder} ${problem}: toolgate keeps its journal, remembered rules and tokens there. Remove it and start again.`);
  refuseTrackedState(config.workspace, folder);
  ignoreInRepository(folder);
  return folder;
}

/**
 * A `.gitignore` of `*` in the state folder, as a virtual environment keeps
 * one: a `git add -A` of the workspace, the user's or a model's, stages
 * nothing of it. Staged and pushed, the HTTP and console tokens would let
 * anyone who reads the repository call tools and answer approvals, and the
 * journal holds every call. Created only where nothing is (`wx`: never
 * through a link a repository planted); one already there is the user's.
 */
function ignoreInRepository(folder: string): void {
  try {
    writeFileSync(join(folder, '.gitignore'), '*\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new CliError('config', `${folder}/.gitignore could not be written: ${(error as Error).message}`);
  }
}

/**
 * The folder of the user's own toolgate state in `home`: the remembered rules
 * the gateway trusts without asking (`policy.json`) and the record of which
 * project policy files it wrote itself.
 */
export function userStateFolder(config: ResolvedConfig, home: string): string {
  return dirname(policyFilePaths({ projectRoot: config.workspace, home }).user);
}

/**
 * Create the user's state folder before any command runs. The sandbox masks
 * only what exists when a command starts: a folder missing then could be
 * created by a command in the `full` tier, with rules the next start would
 * trust. A folder the gateway cannot create, a command of the same user
 * cannot either, so a failure here leaves nothing open.
 */
export function prepareUserStateFolder(config: ResolvedConfig, home = homedir()): void {
  try {
    mkdirSync(userStateFolder(config, home), { recursive: true, mode: 0o700 });
  } catch {
    // See above: nothing a command could do instead.
  }
}

/**
 * The Node host a configuration describes: jailed to the workspace at its
 * scope, its protected paths as the policy names them, with the policy files
 * it imports and the workspace files it starts as upstream servers among
 * them, and the gateway's own files refused to every tool:
 * those the configuration places, and `ownFiles`, those the command line
 * named (the `--token-file` of `serve`).
 */
export function gatewayHostOptions(config: ResolvedConfig, home = homedir(), ownFiles: readonly string[] = []): NodeHostOptions {
  return {
    workspace: config.workspace,
    scope: config.scope,
    spillDir: gatewaySpillDir(config),
    privatePaths: [...gatewayStatePaths(config, home), ...ownFiles],
    protectedPaths: [...(config.policy.protectedPaths ?? []), ...importedPolicyFiles(config), ...upstreamServerFiles(config), ...upstreamServerEntries(config)],
    readableProtectedPaths: config.policy.readableProtectedPaths ?? [],
    ...(config.limits.maxSpillBytes === undefined ? {} : { maxSpillBytes: config.limits.maxSpillBytes }),
    ...(config.limits.maxMediaStoreBytes === undefined ? {} : { maxMediaStoreBytes: config.limits.maxMediaStoreBytes }),
    maskWalkLimit: {
      ...(config.limits.maskWalkEntries === undefined ? {} : { entries: config.limits.maskWalkEntries }),
      ...(config.limits.maskWalkMilliseconds === undefined ? {} : { milliseconds: config.limits.maskWalkMilliseconds }),
    },
  };
}

/**
 * The policy files the configuration imports, by their absolute paths (one
 * place each, whatever glob characters their names hold). Their deny and ask
 * rules load without a pin, so a file rewritten loses them at the next start:
 * the policy asks before a tool names one, and the host holds each as it holds
 * every protected file, masked in the sandbox, where a command a rule allows
 * runs a script that names it nowhere.
 */
function importedPolicyFiles(config: ResolvedConfig): string[] {
  return (config.policy.imports ?? []).map((entry) => entry.path);
}

/**
 * The gateway's own files: its state directory (remembered rules, MCP pins,
 * spills), the journal and its signing key, the configuration file, which
 * may hold an upstream server's credentials in `env`, and the user's state
 * folder, whose rules approve without asking. No tool reads or writes them,
 * whatever the tier or an approval says: the host refuses them outright, and
 * the sandbox masks them. The key is named on its own: a journal kept outside
 * `.toolgate/` keeps it in a `keys/` folder beside it, where, as a `.pem`, a
 * person could approve its read and, outside the workspace, no mask hid it
 * from a command that archives the folder; whoever holds it signs a journal
 * rewritten at will.
 */
function gatewayStatePaths(config: ResolvedConfig, home: string): string[] {
  return ['.toolgate', ...journalFilesOf(config.journal.path), ...(config.file === undefined ? [] : [config.file]), userStateFolder(config, home)];
}
