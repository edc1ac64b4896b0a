import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** What of the workspace's repository the user's own git runs as code, for the sandbox to hold read-only. */
export interface RepositoryCode {
  /** The repository's `.git` folder, bound onto itself so no command can move it aside and build another. */
  readonly gitDir: string;
  /** Its hooks folder and configuration files (a key there can name a program: `core.fsmonitor`, `core.hooksPath`). */
  readonly readOnly: readonly string[];
}

/** The names below `.git` whose content the user's git runs or reads programs from. */
const CODE_NAMES = ['hooks', 'config', 'config.worktree'];

/**
 * The workspace's own repository, when its `.git` is a folder: the sandbox
 * binds it onto itself and its hooks and configuration read-only, so a
 * command (a script of the repository, an archive extracted by a name its
 * argv never shows) cannot plant a hook or a program-naming key that the
 * user's git, outside toolgate and its sandbox, runs at the next commit.
 * toolgate's own git runs neither (its hardening), so a `git` command is not
 * held to this; what it may change is judged by the git rules.
 *
 * A missing hooks folder is created first (as `git init` makes it), since a
 * mount needs a place and an absent folder is one a command could create.
 * A name there that is a link is held where it leads. Checked at each spawn.
 */
export function findRepositoryCode(workspace: string): RepositoryCode | undefined {
  const gitDir = path.join(workspace, '.git');
  if (lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory() !== true) return undefined;
  const hooks = path.join(gitDir, 'hooks');
  if (lstatSync(hooks, { throwIfNoEntry: false }) === undefined) mkdirSync(hooks, { recursive: true, mode: 0o755 });
  const readOnly: string[] = [];
  for (const name of CODE_NAMES) {
    const target = path.join(gitDir, name);
    const entry = lstatSync(target, { throwIfNoEntry: false });
    if (entry === undefined) continue;
    // A dangling link is left to fail the spawn: bwrap cannot bind it, and the command does not run unguarded.
    readOnly.push(entry.isSymbolicLink() ? realpathOrSelf(target) : target);
  }
  return { gitDir, readOnly };
}

function realpathOrSelf(target: string): string {
  try {
    return realpathSync.native(target);
  } catch {
    return target;
  }
}
