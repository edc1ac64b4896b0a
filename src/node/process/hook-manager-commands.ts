import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { ToolUnavailableError } from '../../core/internal.js';
import { isRecord } from '../../core/policy/import-claude-settings.js';
import { yamlParser } from '../fs/yaml-parser.js';

/**
 * What a hook manager's configuration file gives it to run: its commands, as
 * a shell reads them, and the configuration files it reads in turn
 * (lefthook's `extends:`), relative to the top of the work tree.
 */
export interface ManagerCommands {
  readonly commands: readonly string[];
  readonly extended: readonly string[];
}

/** How a manager's commands are read from a configuration file's parsed value (`file` its path, for package.json's key). */
export type CommandsReader = (config: unknown, file: string) => ManagerCommands;

/** How many objects and lists of a configuration are looked into: a manager's has tens. */
const MAX_NODES = 20_000;

/**
 * A hook manager's configuration too large to read whole: what it runs is
 * not known, so nothing is run unheld, and the call is refused as one the
 * host cannot serve (`TOOL_UNAVAILABLE`), naming the bound, never a path.
 */
export class HookConfigurationTooLargeError extends ToolUnavailableError {
  constructor(what: string) {
    super('host', 'process', `a hook manager's configuration is too large to read (${what}), so what the user's next commit runs is not known and nothing was run or written`);
  }
}

/**
 * pre-commit: each hook's `entry` and `args`, which it runs together from the
 * top of the work tree (`entry: ./scripts/check.sh`, `entry: python3` with
 * `args: [tools/lint.py]`, a `language: script` entry).
 */
export const preCommitCommands: CommandsReader = (config) => ({ commands: stringsUnder(config, new Set(['entry', 'args'])), extended: [] });

/** overcommit: each hook's `command` and `required_executable` (`command: ['./bin/check']`). */
export const overcommitCommands: CommandsReader = (config) => ({ commands: stringsUnder(config, new Set(['command', 'required_executable'])), extended: [] });

/**
 * lefthook: each command's or job's `run` and each script's `runner`, a
 * command with a `root` read as run in that folder too, the folders its
 * scripts are taken from (`source_dir`, `source_dir_local`), and the files
 * `extends:` names, read as its configuration in turn. A `script:` lies in
 * those folders, which are held whole.
 */
export const lefthookCommands: CommandsReader = (config) => {
  const commands = stringsUnder(config, new Set(['run', 'runner', 'source_dir', 'source_dir_local']));
  visit(config, (node) => {
    if (isRecord(node) && typeof node.root === 'string' && typeof node.run === 'string') commands.push(`cd ${quoted(node.root)} && ${node.run}`);
  });
  const extended = isRecord(config) ? stringsUnder({ extends: config.extends }, new Set(['extends'])) : [];
  return { commands: [...commands, ...extended], extended };
};

/**
 * lint-staged and simple-git-hooks: an object whose every value is a
 * command or a list of them (`"*.ts": "node scripts/check.js"`), the file's
 * own or package.json's key of the manager's name.
 */
export function commandsOfKey(key: string): CommandsReader {
  return (config, file) => {
    const held = path.basename(file) === 'package.json' ? (isRecord(config) ? config[key] : undefined) : config;
    return { commands: stringsUnder(held, undefined), extended: [] };
  };
}

/** A configuration file's value, by its name: TOML for `.toml`, else YAML (which reads JSON too); undefined for one it cannot read. */
export function parseConfiguration(file: string, text: string): unknown {
  try {
    return file.endsWith('.toml') ? parseToml(text) : yamlParser().parse(text, { maxAliasCount: 100 });
  } catch {
    return undefined;
  }
}

/** The strings under any of `keys` at any depth (a string or a list of them), or every string of the value when `keys` is undefined. */
function stringsUnder(value: unknown, keys: ReadonlySet<string> | undefined): string[] {
  const found: string[] = [];
  const take = (held: unknown): void => {
    if (typeof held === 'string') found.push(held);
    else if (Array.isArray(held)) for (const item of held) if (typeof item === 'string') found.push(item);
  };
  if (keys === undefined) take(value);
  visit(value, (node) => {
    if (Array.isArray(node)) {
      if (keys === undefined) take(node);
      return;
    }
    for (const [key, held] of Object.entries(node)) if (keys === undefined ? typeof held === 'string' : keys.has(key)) take(held);
  });
  return found;
}

/** Each object and list of a value; past `MAX_NODES` of them, throws `HookConfigurationTooLargeError`. */
function visit(value: unknown, at: (node: Record<string, unknown> | unknown[]) => void): void {
  const pending: unknown[] = [value];
  for (let seen = 0; pending.length > 0; seen += 1) {
    if (seen >= MAX_NODES) throw new HookConfigurationTooLargeError(`more than ${MAX_NODES} values`);
    const node = pending.pop();
    if (Array.isArray(node)) {
      const items: readonly unknown[] = node;
      pending.push(...items);
      at([...items]);
    } else if (isRecord(node)) {
      pending.push(...Object.values(node));
      at(node);
    }
  }
}

/** A folder's name as one shell word. */
function quoted(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}
