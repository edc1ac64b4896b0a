import { lstatSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { climbsOut } from '../fs/fs-jail.js';

/** A submodule whose repository is in place: the user's git enters it, with its own configuration and index. */
export interface PopulatedSubmodule {
  /** Its folder, the submodule's working tree. */
  readonly workTree: string;
  /** Its git folder, as the `.git` there leads (real path). */
  readonly gitDir: string;
}

/** What of one submodule the sandbox holds read-only, and its repository when it is in place. */
export interface SubmoduleCode {
  /** Its `.git` file and its git folder, or, unpopulated, its whole folder (the sandbox also binds the folders above each onto themselves). */
  readonly readOnly: readonly string[];
  readonly populated?: PopulatedSubmodule;
}

/** A submodule laid out so that the sandbox cannot hold it: the command is not run. */
export class UnheldSubmoduleError extends Error {
  constructor(readonly entry: string, readonly why: string) {
    super(`the submodule entry ${JSON.stringify(entry)} ${why}`);
    this.name = 'UnheldSubmoduleError';
  }
}

/** What a `.git` file says: one line naming the git folder. */
const GITFILE = /^gitdir: (.+?)\r?\n?$/;
/** A `.git` file larger than this is not one git wrote. */
const MAX_GITFILE_BYTES = 4096;

/**
 * For one gitlink of a repository's index (`entry`, relative to `workTree`),
 * what a command must not change so that the user's git, entering that
 * submodule at its next `git status`, runs nothing a command planted.
 *
 * - Its folder must be a folder reached through folders alone: the sandbox
 *   binds every folder from the working tree down onto itself, and the
 *   kernel refuses to move or remove a mount point, so no command can put
 *   another repository in its place. A missing folder is made, empty, as
 *   `git clone` leaves a submodule it did not fetch. A link or a file on
 *   the way is refused: git does not enter the submodule now, but a command
 *   could put a folder there that it would enter.
 * - Unpopulated (no `.git` in its folder), the folder is held read-only: a
 *   command could otherwise make a repository there, which the user's git
 *   would then enter.
 * - Populated through a `.git` file (`gitdir: ../.git/modules/sub`), the
 *   file is held read-only, and so is the whole git folder it names (its
 *   configuration, hooks, index, and the git folders of its own
 *   submodules): only toolgate's own git, hardened and judged by the git
 *   rules, changes a submodule's repository. A git folder that is not there
 *   is refused, since a command could make one. Through a `.git` folder (an
 *   older layout), that folder is held read-only whole.
 *
 * Anything else at `.git` (a link, a device) is refused.
 */
export function findSubmoduleCode(workTree: string, entry: string): SubmoduleCode {
  if (entry === '' || path.isAbsolute(entry) || climbsOut(path.normalize(entry)) || entry.split('/').includes('.git')) throw new UnheldSubmoduleError(entry, 'names no folder of the working tree');
  const folder = placeFolder(workTree, entry);
  const dotGit = path.join(folder, '.git');
  const found = lstatSync(dotGit, { throwIfNoEntry: false });
  if (found === undefined) return { readOnly: [folder] };
  if (found.isDirectory()) return { readOnly: [dotGit], populated: { workTree: folder, gitDir: dotGit } };
  if (!found.isFile() || found.size > MAX_GITFILE_BYTES) throw new UnheldSubmoduleError(entry, 'has a .git that is neither a folder nor a .git file');
  const named = GITFILE.exec(readFileSync(dotGit, 'utf8'))?.[1];
  if (named === undefined) throw new UnheldSubmoduleError(entry, 'has a .git file that names no git folder');
  let gitDir: string;
  try {
    gitDir = realpathSync.native(path.resolve(folder, named));
  } catch {
    throw new UnheldSubmoduleError(entry, 'has a .git file naming a git folder that is not there');
  }
  if (!lstatSync(gitDir).isDirectory()) throw new UnheldSubmoduleError(entry, 'has a .git file naming something other than a folder');
  return { readOnly: [dotGit, gitDir], populated: { workTree: folder, gitDir } };
}

/** The submodule's folder, made where it is missing; every step on the way must be a folder. */
function placeFolder(workTree: string, entry: string): string {
  let folder = workTree;
  for (const name of entry.split('/')) {
    folder = path.join(folder, name);
    const found = lstatSync(folder, { throwIfNoEntry: false });
    if (found === undefined) mkdirSync(folder, { mode: 0o755 });
    else if (!found.isDirectory()) throw new UnheldSubmoduleError(entry, `lies at or beneath ${found.isSymbolicLink() ? 'a link' : 'a file'} (${path.relative(workTree, folder)})`);
  }
  return folder;
}
