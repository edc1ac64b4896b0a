import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { listToml } from '../../node/policy/load-gemini-policies.js';
import { CliError } from '../cli-error.js';

/** Whose file a policy import is: the user's own (Claude Code user settings, a Gemini CLI user policy) or a project's. */
export type PolicyImportScope = 'user' | 'project';

export interface PolicyImportEntry {
  readonly from: 'claude' | 'gemini';
  readonly path: string;
  /** The scope the configuration (or `policy import --scope`) declares; without it, the file's place decides. */
  readonly scope?: PolicyImportScope | undefined;
}

/**
 * The scope a file is imported as, decided by where it really is, as the
 * peer decides it: the peer reads a file at the user's own place (under the
 * HOME the gateway runs with) as the user's, whatever path names it, so
 * Claude Code anchors `Edit(/agents/**)` of `~/.claude/settings.json` at
 * `~/.claude/`, not at the workspace, and a Gemini CLI user policy outranks
 * every workspace one. Real paths are compared on both sides: a link counts
 * as the file it leads to, and a `~/.claude/settings.json` that is itself a
 * link (a dotfiles checkout) makes the file it leads to the user's.
 *
 * A declared `project` for the user's own file is refused: read in the
 * workspace, its rules would grant there what the peer grants only in
 * `~/.claude/`. A declared `user` stands for any other file (a copy of the
 * user's settings, a gateway run under another HOME).
 */
export async function policyImportScope(entry: PolicyImportEntry, home: string): Promise<PolicyImportScope> {
  const own = await isUsersOwnFile(entry, home);
  if (own && entry.scope === 'project') {
    throw new CliError('config', `Policy import ${entry.path} is the user's own ${PEERS[entry.from]} file, which ${PEERS[entry.from]} reads as user settings: it cannot be imported as "project". Leave "scope" out or set it to "user".`);
  }
  return own ? 'user' : (entry.scope ?? 'project');
}

const PEERS: Readonly<Record<PolicyImportEntry['from'], string>> = { claude: 'Claude Code', gemini: 'Gemini CLI' };

/** Whether the file is, once links are followed, one the peer reads as the user's own. */
async function isUsersOwnFile(entry: PolicyImportEntry, home: string): Promise<boolean> {
  const file = await realOrUndefined(entry.path);
  if (file === undefined) throw new CliError('config', `Policy import ${entry.path} cannot be read.`);
  for (const candidate of await usersOwnFiles(entry.from, home)) {
    if ((await realOrUndefined(candidate)) === file) return true;
  }
  return false;
}

/**
 * The user's own files, where each peer's loader looks for them (see
 * load-claude-settings.ts and load-gemini-policies.ts): Claude Code's user
 * settings and the local file beside them, and every `*.toml` of Gemini
 * CLI's user policy folder. A folder that exists but cannot be listed
 * refuses the start rather than read a user policy as a workspace one.
 */
async function usersOwnFiles(from: PolicyImportEntry['from'], home: string): Promise<string[]> {
  if (from === 'claude') return [join(home, '.claude', 'settings.json'), join(home, '.claude', 'settings.local.json')];
  const folder = join(home, '.gemini', 'policies');
  return (await listToml(folder)).map((name) => join(folder, name));
}

async function realOrUndefined(file: string): Promise<string | undefined> {
  try {
    return await realpath(file);
  } catch {
    return undefined;
  }
}
