import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { CliError } from '../cli-error.js';
import { journalFilesOf, keyFileOf } from './open-journal-to-read.js';
import { inCheckedFolder } from './refuse-tracked-state.js';
import { repositoryTop, someOf, trackedOf } from './tracked-by-git.js';

/**
 * Refuse to open a journal a repository tracks, where the configuration
 * keeps it outside the state folder: the journal itself, SQLite's files
 * beside it, its anchor or its keys folder. A repository that ships the file has the gateway
 * answer calls from receipts its author wrote and hold actions on claims its
 * author left, and the gateway writes every call's arguments and results
 * into a file the user's next `git commit -a` carries into the repository.
 *
 * Each file is asked of the repository where it really is: git runs in the
 * real folder that holds it (or the nearest that exists), so a folder on the
 * way that is a link into a tracked folder (`audit` -> `docs`, with
 * `docs/journal.db` tracked), a submodule or a repository nested in the
 * workspace answers for its own files; asked of the workspace's repository
 * by the name as spelt, git listed nothing for any of them. And a link on the
 * way that the workspace's repository tracks is refused, wherever it leads:
 * the repository, not the configuration, would choose where every call is
 * written, and change it with a pull.
 */
export function refuseTrackedJournal(workspace: string, journal: string): void {
  // The state folder's check already covered what lies inside it (the default place, `.toolgate/journal.db`).
  const unchecked = [...journalFilesOf(journal), dirname(keyFileOf(journal))].filter((path) => !inCheckedFolder(path));
  if (unchecked.length === 0) return;
  const link = firstLinkOnTheWay(workspace, journal);
  const trackedLink = link === undefined ? [] : trackedOf(workspace, [link]);
  if (trackedLink.length > 0) {
    throw new CliError(
      'config',
      `${journal}: the repository tracks ${someOf(trackedLink)}, a link on the way to the journal: the repository, not the configuration, would choose where the gateway writes every call. Keep journal.path off the link, or take it out of the index (git rm --cached ${trackedLink.join(' ')}) and start again.`,
    );
  }
  const realWorkspace = realOrSpelt(workspace);
  for (const [folder, names] of byRealFolder(unchecked)) {
    const tracked = trackedOf(folder, names);
    if (tracked.length === 0) continue;
    const top = repositoryTop(folder) ?? folder;
    const files = tracked.map((entry) => relative(top, join(folder, entry)).split(sep).join('/'));
    const git = top === realWorkspace ? 'git' : `git -C ${top}`;
    throw new CliError(
      'config',
      `${journal}: the repository tracks the journal's files (${someOf(files)}): the gateway would answer calls from what the repository wrote there, and write every call into a file a commit carries into the repository. Take them out of the index (${git} rm --cached ${someOf(files)}) and start again.`,
    );
  }
}

/** The first folder on the way from the workspace to the journal that is a link, when the journal is in the workspace. */
function firstLinkOnTheWay(workspace: string, journal: string): string | undefined {
  const inside = relative(workspace, dirname(journal));
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
  let at = workspace;
  for (const segment of inside.split(sep)) {
    at = join(at, segment);
    const stats = lstatSync(at, { throwIfNoEntry: false });
    // What lies past a missing folder is missing too; past a link, it is in the folder the link leads to.
    if (stats === undefined) return undefined;
    if (stats.isSymbolicLink()) return at;
  }
  return undefined;
}

/**
 * The paths grouped by the real folder that holds them (the nearest that
 * exists, with links resolved), each named relative to it: the last name
 * itself is not resolved, so a tracked link there (`keys`) is listed as one.
 */
function byRealFolder(paths: readonly string[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const path of paths) {
    let folder = dirname(path);
    const rest = [basename(path)];
    let real = realOrUndefined(folder);
    while (real === undefined && dirname(folder) !== folder) {
      rest.unshift(basename(folder));
      folder = dirname(folder);
      real = realOrUndefined(folder);
    }
    const key = real ?? folder;
    groups.set(key, [...(groups.get(key) ?? []), rest.join('/')]);
  }
  return groups;
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function realOrSpelt(path: string): string {
  return realOrUndefined(path) ?? path;
}
