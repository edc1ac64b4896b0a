import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** Not a submodule name's namespace: the standard parts of a git directory, never walked for nested ones. */
const GIT_DIRECTORY_PARTS = new Set(['objects', 'refs', 'logs', 'hooks', 'info', 'worktrees', 'rr-cache', 'lfs', 'branches', 'remotes']);

/**
 * The git directories under a repository's `.git/modules`: a directory
 * holding `HEAD` is one (its own `modules` may hold nested ones); any other
 * directory is part of a submodule name with slashes. Symbolic links are
 * followed, as git follows them. False when the walk cannot finish.
 */
export async function findModuleGitDirs(directory: string, found: string[], budget: { left: number }, visited: Set<string>): Promise<boolean> {
  const names = await namesIn(directory);
  if (names === undefined) return false;
  for (const name of names) {
    budget.left -= 1;
    if (budget.left < 0) return false;
    const candidate = path.join(directory, name);
    const info = await stat(candidate).catch(() => undefined);
    if (info === undefined || !info.isDirectory()) continue;
    const real = await realpath(candidate).catch(() => undefined);
    if (real === undefined || visited.has(real)) continue;
    visited.add(real);
    if (await exists(path.join(candidate, 'HEAD'))) {
      found.push(real);
      for (const inner of await readdir(candidate).catch(() => [] as string[])) {
        if (GIT_DIRECTORY_PARTS.has(inner)) continue;
        if (!(await findModuleGitDirs(path.join(candidate, inner), found, budget, visited))) return false;
      }
    } else if (!(await findModuleGitDirs(candidate, found, budget, visited))) {
      return false;
    }
  }
  return true;
}

/**
 * The git directory of every linked worktree (`.git/worktrees/<name>`): with
 * `--git-dir` there git reads that worktree's own `config.worktree` too.
 * False when the folder cannot be listed, or past the budget.
 */
export async function findLinkedWorktreeGitDirs(directory: string, found: string[], budget: { left: number }): Promise<boolean> {
  const names = await namesIn(directory);
  if (names === undefined) return false;
  budget.left -= names.length;
  if (budget.left < 0) return false;
  for (const name of names) {
    const real = await realpath(path.join(directory, name)).catch(() => undefined);
    if (real !== undefined && (await stat(real).catch(() => undefined))?.isDirectory() === true) found.push(real);
  }
  return true;
}

/** Whether anything is at `file` (a link is followed). */
export async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** The names in a folder; none when there is no folder; undefined when it cannot be listed. */
async function namesIn(directory: string): Promise<string[] | undefined> {
  try {
    return await readdir(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? [] : undefined;
  }
}
