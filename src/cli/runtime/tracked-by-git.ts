import { execFileSync } from 'node:child_process';
import { relative, resolve, sep } from 'node:path';
import { gitHardeningEnv, withGitConfig } from '../../node/process/build-child-env.js';
import { CliError } from '../cli-error.js';
import { SYSTEM_PATH } from '../../node/process/system-path.js';

/**
 * git as the checks run it: found in the system's folders only, with the
 * host's hardening (no fsmonitor, hooks or pager) and `safe.directory`
 * answered in the command's own configuration (`askGit`).
 */
const GIT_ENV = withGitConfig({ PATH: SYSTEM_PATH.join(':'), GIT_CONFIG_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0', ...gitHardeningEnv('false') }, [['safe.directory', '*']]);

/** How long git may take to answer (`askGit`). */
const GIT_TIMEOUT_MS = 10_000;

/** The most of git's answer read: past it, what was read stands for the whole (`askGit`). */
const MAX_GIT_ANSWER_BYTES = 1024 * 1024;

/** What git printed, and whether that is all of it. */
interface GitAnswer {
  readonly text: string;
  readonly whole: boolean;
}

/**
 * What the repository around `cwd` tracks of `paths` (files or folders,
 * absolute or relative to `cwd`), as git lists them, relative to `cwd`;
 * nothing outside a repository or without git; a `config` error when git,
 * inside one, fails to list them or does not answer (`askGit`). Each path is a
 * literal name, never a glob: a journal in `audit[1]/` or `a*b/` names that
 * folder, not `audit1/` or `ab/`. In any case: on a file system that ignores
 * case, git takes the gateway's `.toolgate/http-token` for a tracked
 * `.TOOLGATE/http-token`, which a plain pathspec does not list; a path spelt
 * in another case is that path only where git reads names without case
 * (`core.ignorecase`). A listing longer than git's answer may hold (a
 * repository can track 20,000 long names in `.toolgate/`) counts whole:
 * read in part, it once read as no answer at all, and nothing was refused.
 */
export function trackedOf(cwd: string, paths: readonly string[]): string[] {
  const listed = askGit(cwd, ['ls-files', '-z', '--', ...paths.map((path) => `:(icase,literal)${path}`)]);
  if (listed === undefined) {
    // Inside a repository whose index git cannot read (cut short, garbled), "nothing listed" is no answer either.
    if (repositoryTop(cwd) === undefined) return [];
    throw new CliError(
      'config',
      `${cwd}: git could not read what the repository there tracks (git ls-files failed), and the gateway does not start on a guess: a repository that tracks its journal or state would have the gateway answer calls from the repository's receipts. See what git makes of the repository (git status), and start again.`,
    );
  }
  const entries = listed.text.split('\0').filter((entry) => entry.length > 0);
  // Cut short, the names spelt as asked may be among those left out: every name listed counts.
  if (!listed.whole) return entries;
  const own = paths.map((path) => relative(cwd, resolve(cwd, path)).split(sep).join('/'));
  const exact = entries.filter((entry) => own.some((path) => entry === path || entry.startsWith(`${path}/`)));
  return exact.length === entries.length || askGit(cwd, ['config', '--type=bool', 'core.ignorecase'])?.text.trim() !== 'true' ? exact : entries;
}

/** The top folder of the repository around `cwd`, as git reads it (its real path), or undefined outside one. */
export function repositoryTop(cwd: string): string | undefined {
  const top = askGit(cwd, ['rev-parse', '--show-toplevel'])?.text.trim();
  return top === undefined || top === '' ? undefined : top;
}

/** At most `shown` names of a list, and how many more there are. */
export function someOf(names: readonly string[], shown = 5): string {
  return names.length <= shown ? names.join(', ') : `${names.slice(0, shown).join(', ')} and ${String(names.length - shown)} more`;
}

/**
 * What git prints, or undefined when it says it cannot tell (no repository)
 * or is not there. A git that does not answer in time, or is killed, has
 * said nothing, and the check does not go on as if it had said "nothing
 * tracked": a workspace can hold an index that is a named pipe, which git
 * waits on for good, and a repository could make its index too large to
 * read in time. The start is refused instead (a `config` error).
 * `safe.directory` is answered here, in the command's own configuration (the
 * only place besides the user's and the system's that git reads it from): a
 * repository another user owns, which git refuses to read without it, is
 * what a container's mounted workspace is, and the user's own git, told to
 * trust it, commits there all the same. Reading the index runs nothing of
 * that user's, with the fsmonitor and hooks off. An answer longer than
 * `MAX_GIT_ANSWER_BYTES` is what was read of it, marked as a part.
 */
function askGit(cwd: string, args: readonly string[]): GitAnswer | undefined {
  try {
    const text = execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_GIT_ANSWER_BYTES, env: GIT_ENV });
    return { text, whole: true };
  } catch (error) {
    const { code, stdout, signal } = error as { code?: unknown; stdout?: unknown; signal?: unknown };
    if (code === 'ENOBUFS' && typeof stdout === 'string') return { text: stdout, whole: false };
    if (code === 'ETIMEDOUT' || typeof signal === 'string') {
      throw new CliError(
        'config',
        `${cwd}: git did not answer within ${String(GIT_TIMEOUT_MS / 1000)} s what the repository there tracks of the gateway's files (git ${args[0] ?? ''}${typeof signal === 'string' ? `, stopped by ${signal}` : ''}), and the gateway does not start on a guess: a repository that tracks its journal or state would have the gateway answer calls from the repository's receipts. See what git makes of the repository (git status, a .git/index that is no file), and start again.`,
      );
    }
    return undefined;
  }
}
