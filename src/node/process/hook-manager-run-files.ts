import path from 'node:path';
import { isInside } from '../fs/fs-jail.js';
import { readRegularFile } from '../fs/read-regular-file.js';
import { placesNamedBy } from './client-run-files.js';
import { settledBefore, stampFiles } from './files-stamp.js';
import { HookConfigurationTooLargeError, parseConfiguration, type ManagerCommands } from './hook-manager-commands.js';
import { hookManagerConfigurations, type ManagerConfiguration, type Reading } from './hook-manager-config.js';

/** How much of a configuration file is read: a manager's is a few KiB, a package.json rarely past a hundred. */
const MAX_CONFIGURATION_BYTES = 1024 * 1024;

/** How many commands the configurations of a workspace may give, and how many files (with lefthook's `extends:`) are read for them. */
const MAX_COMMANDS = 2000;
const MAX_FILES = 64;

/** A command, and the folders its relative words are read from. */
interface ManagerCommand {
  readonly command: string;
  readonly from: readonly string[];
}

/**
 * The commands of each workspace's configurations, with the stamp of the
 * files they were read from (`stampFiles`), read again only when one of
 * them changed, as the client settings' commands are.
 */
const kept = new Map<string, Read & { readonly reading: Reading; readonly stamp: string }>();

/** What the configurations give: their commands, every file read for them, and the files a held one extends. */
interface Read {
  readonly commands: readonly ManagerCommand[];
  readonly files: readonly string[];
  readonly extended: readonly string[];
}
const MAX_KEPT = 16;

/**
 * The files and folders of the workspace, absolute, that the commands of a
 * hook manager's configuration name (`hookManagerConfigurations`): a
 * pre-commit `entry: ./scripts/check.sh`, a lefthook `run: node
 * scripts/fmt.js` and the files its `extends:` names, lint-staged's `"*.ts":
 * "node scripts/check.js"` of `.lintstagedrc.json` or package.json. The
 * manager's shim runs them at the user's next commit, outside toolgate and
 * its sandbox, as Claude Code runs the scripts its settings name: each
 * command is read as those are (`placesNamedBy`), its relative words from
 * the top of the work tree and from the configuration's folder, and only
 * what exists now is named; and the files a held configuration extends,
 * made or not, which are its configuration as much as it is. Throws
 * `HookConfigurationTooLargeError` for a held configuration past the bounds
 * of the reading, whose commands are not known.
 */
export function hookManagerRunFiles(workspace: string): string[] {
  const { commands, extended } = managerCommands(workspace);
  const places = new Set(extended.filter((file) => file !== workspace && isInside(workspace, file)));
  for (const { command, from } of commands) for (const place of placesNamedBy(command, workspace, from)) places.add(place);
  return [...places];
}

/** The commands of the workspace's configurations, read again only when the configurations or a file read for them changed. */
function managerCommands(workspace: string): Read {
  const reading = hookManagerConfigurations(workspace);
  const known = kept.get(workspace);
  if (known?.reading === reading && stampFiles(known.files).text === known.stamp) return known;
  const startedMs = Date.now();
  const configured = readCommands(reading.configurations);
  // Each hook is a command itself, run from the top of the work tree (`sh scripts/pre-commit.sh`).
  const read = { ...configured, commands: [...configured.commands, ...reading.hooks.map((hook) => ({ command: hook, from: [reading.top] }))] };
  const stamp = stampFiles(read.files);
  kept.delete(workspace);
  if (settledBefore(stamp, startedMs)) {
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(workspace, { ...read, reading, stamp: stamp.text });
  }
  return read;
}

/**
 * Each configuration's commands, and every file read for them (those
 * missing too, which a file made there changes): lefthook's `extends:`
 * files are read as its configuration in turn, from the top of the work
 * tree, and held as it is. Throws `HookConfigurationTooLargeError` past the
 * bounds for a held configuration.
 */
function readCommands(configurations: readonly ManagerConfiguration[]): Read {
  const pending = [...configurations];
  const files: string[] = [];
  const commands: ManagerCommand[] = [];
  const extended: string[] = [];
  for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
    if (files.includes(next.file)) continue;
    if (files.length >= MAX_FILES) throw new HookConfigurationTooLargeError(`more than ${MAX_FILES} files`);
    files.push(next.file);
    const { read, from, held } = next;
    let found: ManagerCommands;
    try {
      found = read(parseConfiguration(next.file, readConfiguration(next.file)), next.file);
      if (commands.length + found.commands.length > MAX_COMMANDS) throw new HookConfigurationTooLargeError(`more than ${MAX_COMMANDS} commands`);
    } catch (error) {
      // package.json, read for a key and not held, is the model's to write: padded past the bounds, it names nothing
      // rather than refuse every command and walk. A held configuration past them is not known, and refuses.
      if (held || !(error instanceof HookConfigurationTooLargeError)) throw error;
      continue;
    }
    commands.push(...found.commands.map((command) => ({ command, from })));
    for (const file of found.extended) {
      const configuration = extendedBy(next, file);
      if (held) extended.push(configuration.file);
      pending.push(configuration);
    }
  }
  return { commands, files, extended };
}

/** A file a configuration extends, read as it is, from the same folders (the first of which is the top of the work tree). */
function extendedBy(configuration: ManagerConfiguration, file: string): ManagerConfiguration {
  return { ...configuration, file: path.resolve(configuration.from[0] ?? '', file) };
}

/**
 * A configuration file's text, read as a regular file only (`readRegularFile`);
 * empty for one missing, unreadable or a folder, which names nothing; throws
 * `HookConfigurationTooLargeError` past `MAX_CONFIGURATION_BYTES`.
 */
function readConfiguration(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(file, MAX_CONFIGURATION_BYTES + 1);
  } catch {
    return '';
  }
  if (bytes.length > MAX_CONFIGURATION_BYTES) throw new HookConfigurationTooLargeError(`${path.basename(file)} is past ${MAX_CONFIGURATION_BYTES} bytes`);
  return bytes.toString('utf8');
}
