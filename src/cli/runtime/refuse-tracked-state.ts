import { execFileSync } from 'node:child_process';
import { CliError } from '../cli-error.js';

/** Where git is looked up: the system's folders only, never the workspace's. */
const SYSTEM_PATH = '/usr/local/bin:/usr/bin:/bin';

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
  let listed: string;
  try {
    listed = execFileSync('git', ['ls-files', '-z', '--', folder], {
      cwd: workspace,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
      maxBuffer: 1024 * 1024,
      env: {
        PATH: SYSTEM_PATH,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_OPTIONAL_LOCKS: '0',
        GIT_TERMINAL_PROMPT: '0',
        GIT_CONFIG_COUNT: '2',
        GIT_CONFIG_KEY_0: 'core.fsmonitor',
        GIT_CONFIG_VALUE_0: 'false',
        GIT_CONFIG_KEY_1: 'core.hooksPath',
        GIT_CONFIG_VALUE_1: '/dev/null',
      },
    });
  } catch {
    checked.add(folder);
    return;
  }
  checked.add(folder);
  const tracked = listed.split('\0').filter((entry) => entry.length > 0);
  if (tracked.length === 0) return;
  throw new CliError(
    'config',
    `${folder}: the repository tracks ${tracked.length === 1 ? 'a file' : `${String(tracked.length)} files`} in toolgate's state folder, where the gateway writes its token and journal, which a commit would then carry into the repository. Take them out of the index (git rm -r --cached ${folder}) and start again.`,
  );
}
