import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { withGitConfig } from './build-child-env.js';
import { SYSTEM_PATH } from './system-path.js';

/** How long git may take to say where the hooks are; past it, the folder is judged without them. */
const GIT_TIMEOUT_MS = 5000;

/**
 * git as the user runs it, but found in the system's folders only: every
 * configuration file the user's git reads (the system's, the user's, the
 * repository's and what they include) is read, since any of them may set
 * `core.hooksPath`, and none of the host's hardening is added, which sets it
 * to `/dev/null`. `safe.directory` is answered in the command's own
 * configuration, where git reads it: a repository another user owns is one
 * the user's git, told to trust it, commits in all the same.
 */
const GIT_ENV = withGitConfig({ PATH: SYSTEM_PATH.join(':'), HOME: homedir(), LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' }, [['safe.directory', '*']]);

/**
 * The folders the workspace repository's `core.hooksPath` names, absolute,
 * as the user's git reads them (a relative one from the top of the work
 * tree, `~` from the home). husky and its kind set it to a folder of the
 * work tree (`.husky`, `.husky/_`, `.githooks`): what is there is what the
 * user's git runs at the next commit, checkout or push, outside toolgate
 * and its sandbox, as `.git/hooks` is, but under an ordinary name that
 * neither a file tool nor the sandbox would otherwise hold. None when the
 * workspace has no `.git`, when nothing sets it, or when git cannot read
 * the configuration (then the user's git cannot either, and runs no hook).
 */
export function hooksPathFolders(workspace: string): string[] {
  const gitDir = path.join(workspace, '.git');
  if (lstatSync(gitDir, { throwIfNoEntry: false }) === undefined) return [];
  let text: string;
  try {
    text = execFileSync('git', ['--git-dir', gitDir, 'config', '--null', '--type=path', '--get-all', 'core.hooksPath'], {
      cwd: workspace,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: GIT_TIMEOUT_MS,
      maxBuffer: 64 * 1024,
      env: GIT_ENV,
    });
  } catch {
    // Nothing set (git's exit status 1), no git, or a configuration git refuses: no hooks folder of the work tree.
    return [];
  }
  const named = text.split('\0').filter((entry) => entry.length > 0);
  // git runs the hooks of the last value; every one is held, since another file's may end up last.
  return [...new Set(named.map((entry) => (path.isAbsolute(entry) ? path.normalize(entry) : path.join(workspace, entry))))];
}
