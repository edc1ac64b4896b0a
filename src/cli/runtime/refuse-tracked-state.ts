import { relative } from 'node:path';
import { CliError } from '../cli-error.js';
import { trackedOf } from './tracked-by-git.js';

/** Folders already checked by this process: `serve` prepares its state folder twice (the token, then the gateway). */
const checked = new Set<string>();

/**
 * Refuse to start when the workspace's repository tracks anything in the
 * state folder. A repository can ship `.toolgate/.gitignore` reading `!*`,
 * or placeholder files there: the gateway then writes its HTTP token over a
 * tracked file and its journal, anchor and spills where `git add -A` stages
 * them, so the user's next `git commit -a` or `git add -A` and push hands
 * the repository's owner the token and the journal, which holds every
 * call's arguments and results (a `.env` a person let the model read
 * included). The `.gitignore` of `*` the gateway writes does not hold a
 * tracked file, and one the repository shipped is the repository's.
 *
 * Asked of git as `ls-files`, which reads the index and runs nothing the
 * repository names (no hook, filter or fsmonitor: it does not refresh the
 * index), with the fsmonitor and hooks pinned off all the same and no
 * optional lock taken. A workspace that is no repository, or a machine
 * without git, has nothing tracked to refuse.
 */
export function refuseTrackedState(workspace: string, folder: string): void {
  if (checked.has(folder)) return;
  const tracked = trackedOf(workspace, [folder]);
  checked.add(folder);
  if (tracked.length === 0) return;
  throw new CliError(
    'config',
    `${folder}: the repository tracks ${tracked.length === 1 ? 'a file' : `${String(tracked.length)} files`} in toolgate's state folder, where the gateway writes its token and journal, which a commit would then carry into the repository. Take them out of the index (git rm -r --cached ${folder}) and start again.`,
  );
}

/** Whether `path` lies in a state folder this process has checked already (`refuseTrackedState`). */
export function inCheckedFolder(path: string): boolean {
  return [...checked].some((folder) => !relative(folder, path).startsWith('..'));
}
