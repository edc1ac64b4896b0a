import { execFileSync } from 'node:child_process';
import { relative, sep } from 'node:path';
import { gitHardeningEnv, withGitConfig } from '../../node/process/build-child-env.js';
import { SYSTEM_PATH } from '../../node/process/system-path.js';
import { CliError } from '../cli-error.js';

/**
 * git as the check runs it: found in the system's folders only, with the
 * host's hardening (no fsmonitor, hooks or pager) and `safe.directory`
 * answered in the command's own configuration (`askGit`).
 */
const GIT_ENV = withGitConfig({ PATH: SYSTEM_PATH.join(':'), GIT_CONFIG_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0', ...gitHardeningEnv('false') }, [['safe.directory', '*']]);

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
  // In any case: on a file system that ignores case, git takes the gateway's `.toolgate/http-token` for a
  // tracked `.TOOLGATE/http-token`, which a plain pathspec does not list.
  const listed = askGit(workspace, ['ls-files', '-z', '--', `:(icase)${folder}`]);
  checked.add(folder);
  if (listed === undefined) return;
  const own = relative(workspace, folder).split(sep).join('/');
  const entries = listed.split('\0').filter((entry) => entry.length > 0);
  const exact = entries.filter((entry) => entry === own || entry.startsWith(`${own}/`));
  // A folder spelt in another case is that folder only where git reads names without case (`core.ignorecase`).
  const tracked = exact.length === entries.length || askGit(workspace, ['config', '--type=bool', 'core.ignorecase'])?.trim() !== 'true' ? exact : entries;
  if (tracked.length === 0) return;
  throw new CliError(
    'config',
    `${folder}: the repository tracks ${tracked.length === 1 ? 'a file' : `${String(tracked.length)} files`} in toolgate's state folder, where the gateway writes its token and journal, which a commit would then carry into the repository. Take them out of the index (git rm -r --cached ${folder}) and start again.`,
  );
}

/**
 * What git prints, or undefined when it fails (no repository, no git).
 * `safe.directory` is answered here, in the command's own configuration (the
 * only place besides the user's and the system's that git reads it from): a
 * repository another user owns, which git refuses to read without it, is
 * what a container's mounted workspace is, and the user's own git, told to
 * trust it, commits there all the same. Reading the index runs nothing of
 * that user's, with the fsmonitor and hooks off.
 */
function askGit(workspace: string, args: readonly string[]): string | undefined {
  try {
    return execFileSync('git', args, {
      cwd: workspace,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
      maxBuffer: 1024 * 1024,
      env: GIT_ENV,
    });
  } catch {
    return undefined;
  }
}
