import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isRecord } from '../../core/policy/import-claude-settings.js';
import { shellWords } from '../../core/policy/shell-words.js';
import { isInside } from '../fs/fs-jail.js';
import { readRegularFile } from '../fs/read-regular-file.js';
import { settledBefore, stampFiles } from './files-stamp.js';

/**
 * The workspace's client settings (protected themselves) whose commands the client runs by itself, each with how
 * its commands are read: Claude Code's, the project's and the user's local ones; Factory's Droid's, whose settings
 * hold `hooks` as Claude Code's do and whose `hooks.json` (once `hooks/hooks.json`) is keyed by event; Augment's.
 */
const CLIENT_SETTINGS: readonly { readonly file: string; readonly commands: (settings: unknown) => string[] }[] = [
  { file: '.claude/settings.json', commands: claudeSettingsCommands },
  { file: '.claude/settings.local.json', commands: claudeSettingsCommands },
  { file: '.factory/settings.json', commands: claudeSettingsCommands },
  { file: '.factory/settings.local.json', commands: claudeSettingsCommands },
  { file: '.factory/hooks.json', commands: hookFileCommands },
  { file: '.factory/hooks/hooks.json', commands: hookFileCommands },
  { file: '.augment/settings.json', commands: claudeSettingsCommands },
  { file: '.augment/settings.local.json', commands: claudeSettingsCommands },
];

/** The keys of Claude Code's settings whose value is a command it runs itself, for a credential or a header. */
const HELPER_KEYS = ['apiKeyHelper', 'awsAuthRefresh', 'awsCredentialExport', 'otelHeadersHelper'];

/** The variables Claude Code and Factory's Droid set to the project's folder for the commands they run: each reads as the workspace. */
const PROJECT_DIRS = ['CLAUDE_PROJECT_DIR', 'FACTORY_PROJECT_DIR'];

/** The words after which a command's next word is the folder it goes on in, not a file it runs. */
const CHANGE_FOLDER = new Set(['cd', 'pushd']);

/** The errors of a name no entry can have now: missing, too long to be a name, or through a loop of links. */
const NO_ENTRY = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP']);

/** How deep a command given as one word (`sh -c '…'`, `bash -lc "…"`) is read again for the places it names. */
const MAX_NESTING = 4;

/**
 * The commands of each workspace's settings, with the stamp of the settings
 * files they were read under (`stampFiles`): the sandbox asks at each spawn,
 * the file tools at each walk.
 */
const kept = new Map<string, { readonly stamp: string; readonly commands: readonly string[] }>();
const MAX_KEPT = 16;

/**
 * The files and folders of the workspace, absolute, that a protected
 * client configuration of the workspace runs by itself: what the commands
 * of Claude Code's `.claude/settings.json` and `.claude/settings.local.json`
 * name (each hook, the status line, the credential helpers), and the hooks
 * of Droid's and Augment's (`CLIENT_SETTINGS`), as `placesNamedBy` reads
 * them. The client runs them at the user's next
 * session, outside toolgate and its sandbox, as git runs the hooks folder
 * `core.hooksPath` names: the settings are protected, and so, with this,
 * is what they run. Only what exists now: a word names a file or it does
 * not, and no word says which of the missing ones would be run. A settings
 * file that is missing, unreadable or not JSON names nothing.
 */
export function clientRunFiles(workspace: string): string[] {
  const places = new Set<string>();
  for (const command of settingsCommands(workspace)) for (const place of placesNamedBy(command, workspace)) places.add(place);
  return [...places];
}

/** Every command the settings give Claude Code to run by itself: `hooks.<event>[].hooks[].command`, `statusLine.command` and the helpers. */
export function claudeSettingsCommands(settings: unknown): string[] {
  if (!isRecord(settings)) return [];
  const commands: unknown[] = HELPER_KEYS.map((key) => settings[key]);
  if (isRecord(settings.statusLine)) commands.push(settings.statusLine.command);
  return [...commands.filter((command): command is string => typeof command === 'string'), ...eventCommands(settings.hooks)];
}

/** The commands of a hooks file keyed by event (Droid's `hooks.json`), or holding them under `hooks` as settings do. */
function hookFileCommands(file: unknown): string[] {
  return isRecord(file) ? [...eventCommands(file), ...eventCommands(file.hooks)] : [];
}

/** `<event>[].hooks[].command` of hooks keyed by event. */
function eventCommands(events: unknown): string[] {
  const commands: unknown[] = [];
  if (!isRecord(events)) return [];
  for (const matchers of Object.values(events)) {
    if (!Array.isArray(matchers)) continue;
    for (const matcher of matchers) if (isRecord(matcher) && Array.isArray(matcher.hooks)) for (const hook of matcher.hooks) if (isRecord(hook)) commands.push(hook.command);
  }
  return commands.filter((command): command is string => typeof command === 'string');
}

/**
 * The places of the workspace a command names, as Claude Code runs it there
 * with a shell: each word (`shellWords`, `$CLAUDE_PROJECT_DIR` and `$FACTORY_PROJECT_DIR` the workspace)
 * and each place it may hold (`spellingsIn`) that names an entry of the
 * workspace, relative words from the workspace (or the folders `from`
 * names, where another program runs it) and from each
 * folder a `cd` of the command goes on in (itself no place: a folder held
 * whole would hold every file in it); and what a word that is a command
 * itself names (`sh -c './a.sh && ./b.sh'`). The workspace itself is none.
 */
export function placesNamedBy(command: string, workspace: string, from: readonly string[] = [workspace]): string[] {
  return [...new Set(placesNamedFrom(command, workspace, from, 0))];
}

/** `placesNamedBy`, relative words read from each of `folders`, `depth` commands deep. */
function placesNamedFrom(command: string, workspace: string, folders: readonly string[], depth: number): string[] {
  const places: string[] = [];
  const bases = [...folders];
  let changesFolder = false;
  let previous: string | undefined;
  for (const word of shellWords(command, Object.fromEntries(PROJECT_DIRS.map((name) => [name, workspace])))) {
    const named = spellingsIn(word, previous);
    previous = word;
    const found = bases.flatMap((base) => named.map((spelled) => path.resolve(base, spelled))).filter((place) => place !== workspace && isInside(workspace, place) && isEntry(place) && !holdsWorkspace(place, workspace));
    if (changesFolder) bases.push(...found);
    else places.push(...found);
    if (depth < MAX_NESTING && /\s/.test(word)) places.push(...placesNamedFrom(word, workspace, bases, depth + 1));
    changesFolder = CHANGE_FOLDER.has(word);
  }
  return places;
}

/** Characters no path of a hook's is spelled with, around which a word may still hold one: quotes, expansions and their braces, `=` and what joins commands. */
const NOT_IN_A_PATH = /[\s"'`$(){}[\];,:|&<>=]+/;

/**
 * The spellings of places a word may hold: the word; each run of it between
 * characters no path is spelled with (`--config=lint.json`,
 * `${CLAUDE_PROJECT_DIR:-.}/scripts/x.sh`, `$(git rev-parse
 * --show-toplevel)/scripts/x.sh`, `require('./lib/x.js')`); each run from
 * after each `/` in it, the rest of a path whose start is an expansion no
 * reading can know (`$HOME`, a default, a command's output); and after
 * `-m`, the file and folder of a Python module (`tools.notify`). Read wide:
 * a word that names a place nothing runs only holds one more.
 */
function spellingsIn(word: string, previous: string | undefined): string[] {
  const spellings = new Set([word]);
  for (const run of word.split(NOT_IN_A_PATH)) {
    spellings.add(run);
    for (let at = run.indexOf('/'); at !== -1; at = run.indexOf('/', at + 1)) spellings.add(run.slice(at + 1));
  }
  if (previous === '-m') {
    const module = word.replaceAll('.', '/');
    spellings.add(module).add(`${module}.py`);
  }
  spellings.delete('');
  return [...spellings];
}

/**
 * Whether a place leads, through its links, to the workspace or a folder
 * holding it: held, it would hold the whole workspace, so no write could
 * run unasked. Every word of a hook names a place when something stands
 * there, and a command may make a link under any name (`ln -s . prettier`,
 * for a hook's `npx prettier --write`), so such a place is none.
 */
function holdsWorkspace(place: string, workspace: string): boolean {
  try {
    return isInside(realpathSync(place), realpathSync(workspace));
  } catch {
    return false;
  }
}

/**
 * Whether an entry stands at `place`. One that cannot be looked at (a folder
 * above it made unreadable) counts: what holds it then fails closed, as a
 * hooks folder that cannot be looked at does, rather than leave it to a
 * command to write once it gives the permission back.
 */
function isEntry(place: string): boolean {
  try {
    return lstatSync(place, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    return !NO_ENTRY.has((error as NodeJS.ErrnoException).code ?? '');
  }
}

/** The commands of the workspace's settings, read again only when a settings file changed. */
function settingsCommands(workspace: string): readonly string[] {
  const files = CLIENT_SETTINGS.map(({ file }) => path.join(workspace, file));
  const known = kept.get(workspace);
  if (known !== undefined && stampFiles(files).text === known.stamp) return known.commands;
  const startedMs = Date.now();
  const commands = CLIENT_SETTINGS.flatMap(({ commands: read }, at) => read(readSettings(files[at] as string)));
  const stamp = stampFiles(files);
  kept.delete(workspace);
  if (settledBefore(stamp, startedMs)) {
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(workspace, { stamp: stamp.text, commands });
  }
  return commands;
}

/**
 * A settings file's JSON, read where its links lead as Claude Code reads it,
 * but as a regular file only, opened without waiting on a FIFO put in its
 * place (`readRegularFile`); undefined for one missing, unreadable or not
 * JSON, which names nothing.
 */
function readSettings(file: string): unknown {
  try {
    return JSON.parse(readRegularFile(file).toString('utf8'));
  } catch {
    return undefined;
  }
}
