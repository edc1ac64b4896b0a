import { lstatSync, mkdirSync, type Stats } from 'node:fs';

/**
 * Make `folder` (mode 0700; its parents too with `parents`) unless it is
 * there, then say why it cannot hold a host's own state, or `undefined` when
 * it can. A folder the host keeps its state in may arrive with a cloned
 * repository, and what the host later writes or sweeps there must stay
 * there: a symbolic link (to a folder of the user's, which retention would
 * then empty) or a file is refused, and so is a folder another user owns or
 * every user may write, whose entries someone else could swap for links
 * after this check.
 */
export function prepareOwnFolder(folder: string, parents = false): string | undefined {
  let stats = lstatOrUndefined(folder);
  if (stats === undefined) {
    mkdirSync(folder, { recursive: parents, mode: 0o700 });
    stats = lstatSync(folder);
  }
  return ownFolderProblem(stats);
}

function lstatOrUndefined(folder: string): Stats | undefined {
  try {
    return lstatSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function ownFolderProblem(stats: Stats): string | undefined {
  if (!stats.isDirectory()) return 'is not a folder (a symbolic link or a file)';
  const user = process.getuid?.();
  if (user !== undefined && stats.uid !== user) return 'belongs to another user';
  if ((stats.mode & 0o002) !== 0) return 'is writable by every user';
  return undefined;
}
