import { homedir } from 'node:os';
import path from 'node:path';
import { stampFiles, type FilesStamp } from './files-stamp.js';
import { findRepository } from './object-store-stamp.js';

/**
 * Where a git built for this system reads its system-wide configuration
 * (Debian's, a `/usr/local` build's), unless the environment names another.
 */
const SYSTEM_CONFIG_FILES = ['/etc/gitconfig', '/usr/local/etc/gitconfig'];

/**
 * A stamp of every file git reads to answer what a repository's
 * configuration names (`workTreeGitCode`): the repository's `config` and
 * `config.worktree`, its `HEAD` (an `includeIf.onbranch:` follows it), the
 * system's and the user's files where the environment puts them, and each
 * file an include names (`included`), each as named and where its links
 * lead (`stampFiles`), with the environment's own keys: the same stamp is
 * the same answer. Undefined where the git directory is not the
 * workspace's own folder (a linked worktree's or a submodule's `.git` file,
 * a `commondir` naming another folder, a package of a monorepo): there git
 * reads files this does not follow, and is asked each time.
 */
export function gitConfigStamp(top: string, environment: Readonly<Record<string, string>>, included: readonly string[]): FilesStamp | undefined {
  const gitDir = path.join(top, '.git');
  // A `commondir` naming the folder itself (as toolgate places it) leaves git reading that folder's files; it is stamped with them.
  const places = findRepository(top);
  if (places?.gitDir !== gitDir || places.commonDir !== gitDir) return undefined;
  const home = environment.HOME ?? homedir();
  const xdg = environment.XDG_CONFIG_HOME ?? path.join(home, '.config');
  const files = [
    path.join(gitDir, 'config'),
    path.join(gitDir, 'config.worktree'),
    path.join(gitDir, 'HEAD'),
    path.join(gitDir, 'commondir'),
    ...(environment.GIT_CONFIG_SYSTEM === undefined ? SYSTEM_CONFIG_FILES : [environment.GIT_CONFIG_SYSTEM]),
    ...(environment.GIT_CONFIG_GLOBAL === undefined ? [path.join(xdg, 'git', 'config'), path.join(home, '.gitconfig')] : [environment.GIT_CONFIG_GLOBAL]),
    ...included,
  ];
  const parts = Object.entries(environment)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`);
  return stampFiles(files.map((file) => path.resolve(top, file)), parts);
}
