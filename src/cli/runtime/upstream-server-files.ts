import { statSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import type { ResolvedConfig } from '../config/config-types.js';
import { completedEntryFiles, moduleFiles } from './server-entry-files.js';

/**
 * The workspace's files the configuration starts as stdio upstream servers:
 * its command when that is a path (`./bin/server`), and every argument that
 * names a place in the workspace other than a folder (`node servers/notes.mjs`,
 * `python3 tools/server.py`, the value of `--import=./hooks.mjs`), read from
 * the workspace, where a server starts; an option alone (`-u`, `--stdio`)
 * names none. In its declared environment, a word spelled as a path names
 * one too (`NODE_OPTIONS=--require ./hooks/preload.cjs`, which node loads).
 * The gateway runs each at every start, outside the sandbox and with the
 * user's rights: a model that rewrote one, by an edit the mode approves or a
 * command a rule allows, would run its own code there at the next start. A
 * name that does not exist yet counts too (a server that never came up runs
 * what a model makes there); a folder does not (`server-filesystem .` names
 * the workspace, whose files are the model's to edit).
 */
export function upstreamServerFiles(config: ResolvedConfig): string[] {
  return [...new Set(namedPlaces(config).filter((place) => !isFolder(place)))];
}

/**
 * The files a runtime runs for the names `upstreamServerFiles` reads, besides
 * those names: `node servers/notes` runs `servers/notes.js`, or, a folder,
 * its `index.js` or the `main` its `package.json` names; `python3 -m
 * servers.notes` with the workspace on `PYTHONPATH` runs `servers/notes.py`;
 * a command by its name alone, with a folder of the workspace on the `PATH`
 * the configuration declares, runs the file of that name there.
 * Protected as the names are: under `accept-edits` a model rewrote
 * `servers/notes.js` for `node servers/notes` and the next start ran it.
 * A name that is a file, or holds an extension, runs as named.
 */
export function upstreamServerEntries(config: ResolvedConfig): string[] {
  const files = new Set<string>();
  // A file there runs as it is named, and a name with its extension is the file meant: only a folder, or a bare name that is none yet, is completed.
  const completes = (place: string): boolean => isFolder(place) || (!isFile(place) && !basename(place).includes('.'));
  // Only what a runtime is handed runs as a script: a folder handed to another program is its data (`server-filesystem
  // src` serves `src`, whose `index.js` is the model's to edit).
  const scripts = Object.values(config.servers).filter((server) => server.command !== undefined && RUNTIME.test(basename(server.command)));
  for (const place of namedPlaces(config, scripts).filter(completes)) for (const entry of completedEntryFiles(place)) if (inWorkspace(config.workspace, entry)) files.add(entry);
  for (const server of Object.values(config.servers)) {
    if (server.command === undefined) continue;
    // A command by its name alone is looked up on the PATH the configuration declares: in a folder of the workspace
    // there, the file it finds (or one made in a folder ahead of it) is the workspace's code the next start runs.
    if (!server.command.includes('/')) for (const folder of searchFolders(config.workspace, server.env?.PATH)) files.add(resolve(folder, server.command));
    // python leaves the working folder off the module path of `-m` (`launcherEnv`), unless `PYTHONPATH` puts it back.
    const roots = searchFolders(config.workspace, server.env?.PYTHONPATH);
    const modules = modulesRun(server.args ?? []);
    for (const root of roots) for (const module of modules) for (const file of moduleFiles(root, module)) files.add(file);
  }
  return [...files];
}

/** The folders of a search path (`PATH`, `PYTHONPATH`) that are the workspace or lie in it. */
function searchFolders(workspace: string, value: string | undefined): string[] {
  const folders = (value ?? '').split(':').filter((entry) => entry !== '').map((entry) => resolve(workspace, entry));
  return folders.filter((folder) => folder === workspace || inWorkspace(workspace, folder));
}

/** The runtimes that complete a script's name or run a folder's entry (`node servers/notes`, `python3 tools/server`). */
const RUNTIME = /^(?:node|nodejs|bun|deno|python[\d.]*)$/i;

/** The places of the workspace, the workspace aside, that a stdio server's command, arguments and environment name. */
function namedPlaces(config: ResolvedConfig, servers: readonly ResolvedConfig['servers'][string][] = Object.values(config.servers)): string[] {
  const places: string[] = [];
  for (const server of servers) {
    if (server.command === undefined) continue;
    const named = [...(server.command.includes('/') ? [server.command] : []), ...(server.args ?? []), ...pathsInEnv(server.env ?? {})];
    for (const argument of named) {
      const name = placeNamed(argument);
      if (name === undefined) continue;
      const place = resolve(config.workspace, name);
      if (inWorkspace(config.workspace, place)) places.push(place);
    }
  }
  return places;
}

function inWorkspace(workspace: string, place: string): boolean {
  const inside = relative(workspace, place);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside);
}

/** The modules `-m` names (`python -m servers.notes`, `-mservers.notes`), which python finds on its module path. */
function modulesRun(args: readonly string[]): string[] {
  return args.flatMap((argument, index) => (argument === '-m' ? (args[index + 1] ?? []) : argument.startsWith('-m') && !argument.startsWith('-m=') ? argument.slice(2) : []));
}

/**
 * The words of the declared environment spelled as paths (`./x`, `../x`,
 * `/x`), alone or as an option's value: only those, since a value is as often
 * a token, a URL or a name as a file, and a secret has no business in a list
 * of paths.
 */
function pathsInEnv(env: Readonly<Record<string, string>>): string[] {
  const words = Object.values(env).flatMap((value) => value.split(/\s+/));
  return words.filter((word) => /^(?:\.{1,2}\/|\/)/.test(placeNamed(word) ?? ''));
}

/** The place an argument names: itself, or an option's value after `=` (`--require=./preload.cjs`); an option alone names none. */
function placeNamed(argument: string): string | undefined {
  if (!argument.startsWith('-')) return argument;
  const equals = argument.indexOf('=');
  return equals === -1 || equals === argument.length - 1 ? undefined : argument.slice(equals + 1);
}

function isFolder(place: string): boolean {
  try {
    return statSync(place).isDirectory();
  } catch {
    return false;
  }
}

function isFile(place: string): boolean {
  try {
    return statSync(place).isFile();
  } catch {
    return false;
  }
}
