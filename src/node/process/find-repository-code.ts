import { lstatSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What of the workspace's repository the user's own git runs as code, for the sandbox to hold read-only. */
export interface RepositoryCode {
  /** The repository's `.git` folder, bound onto itself so no command can move it aside and build another. */
  readonly gitDir: string;
  /** Its hooks folder and configuration files (a key there can name a program: `core.fsmonitor`, `core.hooksPath`). */
  readonly readOnly: readonly string[];
}

/**
 * The names below `.git` whose content the user's git runs or reads programs from. `commondir` names the folder
 * git reads the configuration and hooks from (a linked worktree's): pointed at a folder a command built, it
 * would stand another `config` and `hooks` in for the ones held here.
 */
const CODE_NAMES = ['hooks', 'config', 'config.worktree', 'commondir'];

/** What a placed `commondir` says: the repository's own folder, which is where git looks without one. */
const OWN_COMMON_DIR = '.\n';

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
 * So is a missing `commondir`, naming `.git` itself (git then reads what it
 * read without one): absent, a command could write one naming its own
 * folder. And a missing `config.worktree`, empty. A name there that is a link is held where it leads. Checked at each spawn.
 */
export function findRepositoryCode(workspace: string): RepositoryCode | undefined {
  const gitDir = path.join(workspace, '.git');
  if (lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory() !== true) return undefined;
  const hooks = path.join(gitDir, 'hooks');
  if (lstatSync(hooks, { throwIfNoEntry: false }) === undefined) mkdirSync(hooks, { recursive: true, mode: 0o755 });
  placeFile(path.join(gitDir, 'commondir'), OWN_COMMON_DIR);
  // git reads it once the user sets `extensions.worktreeConfig`: absent, a command could write one.
  placeFile(path.join(gitDir, 'config.worktree'), '');
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

/** `content` at `target` where there is nothing; a file made in the meantime (or a link there) is left as it is, and held. */
function placeFile(target: string, content: string): void {
  if (lstatSync(target, { throwIfNoEntry: false }) !== undefined) return;
  try {
    writeFileSync(target, content, { flag: 'wx', mode: 0o644 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

function realpathOrSelf(target: string): string {
  try {
    return realpathSync.native(target);
  } catch {
    return target;
  }
}
