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
  const tracked = trackedOf(workspace, [folder]);
  checked.add(folder);
  if (tracked.length === 0) return;
  throw new CliError(
    'config',
    `${folder}: the repository tracks ${tracked.length === 1 ? 'a file' : `${String(tracked.length)} files`} in toolgate's state folder, where the gateway writes its token and journal, which a commit would then carry into the repository. Take them out of the index (git rm -r --cached ${folder}) and start again.`,
  );
}

/**
 * Refuse to open a journal the workspace's repository tracks, where the
 * configuration keeps it outside the state folder: the journal itself, its
 * WAL, its anchor or its keys folder. A repository that ships the file has
 * the gateway answer calls from receipts its author wrote and hold actions
 * on claims its author left, and the gateway writes every call's arguments
 * and results into a file the user's next `git commit -a` carries into the
 * repository.
 */
export function refuseTrackedJournal(workspace: string, journal: string, related: readonly string[]): void {
  // The state folder's check already covered what lies inside it (the default place, `.toolgate/journal.db`).
  const unchecked = [journal, `${journal}-wal`, `${journal}-shm`, ...related].filter((path) => ![...checked].some((folder) => !relative(folder, path).startsWith('..')));
  if (unchecked.length === 0) return;
  const tracked = trackedOf(workspace, unchecked);
  if (tracked.length === 0) return;
  throw new CliError(
    'config',
    `${journal}: the repository tracks the journal's files (${tracked.join(', ')}): the gateway would answer calls from what the repository wrote there, and write every call into a file a commit carries into the repository. Take them out of the index (git rm --cached ${tracked.join(' ')}) and start again.`,
  );
}

/**
 * What the repository tracks of `paths` (files or folders), as git lists it,
 * relative to the workspace; nothing when git cannot tell (no repository, no
 * git). In any case: on a file system that ignores case, git takes the
 * gateway's `.toolgate/http-token` for a tracked `.TOOLGATE/http-token`,
 * which a plain pathspec does not list; a path spelt in another case is that
 * path only where git reads names without case (`core.ignorecase`).
 */
function trackedOf(workspace: string, paths: readonly string[]): string[] {
  const listed = askGit(workspace, ['ls-files', '-z', '--', ...paths.map((path) => `:(icase)${path}`)]);
  if (listed === undefined) return [];
  const own = paths.map((path) => relative(workspace, path).split(sep).join('/'));
  const entries = listed.split('\0').filter((entry) => entry.length > 0);
  const exact = entries.filter((entry) => own.some((path) => entry === path || entry.startsWith(`${path}/`)));
  return exact.length === entries.length || askGit(workspace, ['config', '--type=bool', 'core.ignorecase'])?.trim() !== 'true' ? exact : entries;
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
