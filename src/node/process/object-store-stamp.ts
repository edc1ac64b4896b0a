import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Where git keeps a repository: the folder of its work tree (the git directory itself when bare), its git directory and the common one. */
export interface RepositoryPlaces {
  readonly top: string;
  readonly gitDir: string;
  readonly commonDir: string;
}

/** The most entries a stamp looks at; a repository with more is read again at each command. */
const MAX_STAMP_ENTRIES = 20_000;

/** The folders of a git directory whose entries say what git reaches and holds: refs, reflogs and objects. */
const WALKED = ['refs', 'logs', 'reftable'];

/**
 * The repository git finds from `folder`, as git looks: the nearest folder
 * at or above it holding a `.git` (a folder, or a file naming one, as in a
 * linked worktree or a submodule), or that is a git directory itself (a
 * bare repository, which `git -C` enters). Undefined when there is none.
 */
export function findRepository(folder: string): RepositoryPlaces | undefined {
  for (let at = folder; ; at = path.dirname(at)) {
    const dotGit = path.join(at, '.git');
    const found = lstatSync(dotGit, { throwIfNoEntry: false });
    if (found?.isDirectory() === true) return { top: at, gitDir: dotGit, commonDir: commonDirOf(dotGit) };
    if (found?.isFile() === true) {
      const named = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1];
      if (named === undefined) return undefined;
      const gitDir = path.resolve(at, named.trim());
      return { top: at, gitDir, commonDir: commonDirOf(gitDir) };
    }
    if (isGitDirectory(at)) return { top: at, gitDir: at, commonDir: commonDirOf(at) };
    if (path.dirname(at) === at) return undefined;
  }
}

function isGitDirectory(folder: string): boolean {
  return ['HEAD', 'objects', 'refs'].every((name) => lstatSync(path.join(folder, name), { throwIfNoEntry: false }) !== undefined);
}

/** The common git directory a linked worktree's names in its `commondir` file; the git directory itself otherwise. */
function commonDirOf(gitDir: string): string {
  try {
    return path.resolve(gitDir, readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim());
  } catch {
    return gitDir;
  }
}

/**
 * A stamp of everything git reads to say what a repository reaches and
 * holds: each entry at the top of its git directories (`HEAD`, `index`,
 * `packed-refs`, `ORIG_HEAD`, …), every ref and reflog file, and the object
 * folders (a loose object written changes the folder it lands in). Each
 * entry by its inode, size and change time to the nanosecond. Undefined
 * when the repository holds more entries than a stamp looks at.
 */
export function repositoryStamp(places: RepositoryPlaces): string | undefined {
  const parts: string[] = [];
  const budget = { left: MAX_STAMP_ENTRIES };
  const folders = places.commonDir === places.gitDir ? [places.gitDir] : [places.gitDir, places.commonDir];
  for (const folder of folders) {
    if (!stampFolder(folder, parts, budget, 0)) return undefined;
    for (const walked of WALKED) if (!stampFolder(path.join(folder, walked), parts, budget, Infinity)) return undefined;
    for (const objects of ['objects', 'objects/pack', 'objects/info']) if (!stampFolder(path.join(folder, objects), parts, budget, 0)) return undefined;
  }
  return parts.join('\n');
}

/** Each entry of `folder` and, down to `depth`, of its folders, added to `parts`; false past the budget. */
function stampFolder(folder: string, parts: string[], budget: { left: number }, depth: number): boolean {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    parts.push(`${folder} -`);
    return true;
  }
  for (const name of names) {
    budget.left -= 1;
    if (budget.left < 0) return false;
    const entry = path.join(folder, name);
    const stats = lstatSync(entry, { bigint: true, throwIfNoEntry: false });
    if (stats === undefined) continue;
    parts.push(`${entry} ${stats.ino} ${stats.size} ${stats.mtimeNs} ${stats.ctimeNs}`);
    if (depth > 0 && stats.isDirectory() && !stampFolder(entry, parts, budget, depth - 1)) return false;
  }
  return true;
}
