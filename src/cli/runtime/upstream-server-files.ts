import { statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { ResolvedConfig } from '../config/config-types.js';

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
  const files = new Set<string>();
  for (const server of Object.values(config.servers)) {
    if (server.command === undefined) continue;
    const named = [...(server.command.includes('/') ? [server.command] : []), ...(server.args ?? []), ...pathsInEnv(server.env ?? {})];
    for (const argument of named) {
      const name = placeNamed(argument);
      if (name === undefined) continue;
      const place = resolve(config.workspace, name);
      const inside = relative(config.workspace, place);
      if (inside === '' || inside.startsWith('..') || isAbsolute(inside) || isFolder(place)) continue;
      files.add(place);
    }
  }
  return [...files];
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
