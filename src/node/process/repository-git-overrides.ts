import { GIT_VALUE_OPTIONS, gitSubcommandIndex } from '../../core/policy/find-dangerous-argument.js';
import { spawnBounded } from './spawn-bounded.js';

/**
 * Keys through which a repository's own configuration makes git run a
 * program, under a name the repository chooses (`filter.<driver>.clean`,
 * `diff.<driver>.textconv`, `merge.<driver>.driver`, …). No fixed list of
 * `GIT_CONFIG_*` overrides can name them in advance, so git is asked.
 * Names are matched as git canonicalises them: section and key lower case.
 */
const DRIVER_KEYS =
  '^(filter\\..+\\.(clean|smudge|process|required)|diff\\..+\\.(command|textconv)|merge\\..+\\.driver|remote\\..+\\.(uploadpack|receivepack)|core\\.(gitproxy|alternaterefscommand|askpass)|gpg\\.(.+\\.)?(program|defaultkeycommand))$';

/** Configuration the repository itself controls; a model that can write files can write these. */
const REPOSITORY_SCOPES = new Set(['local', 'worktree']);

export interface RepositoryOverridesOptions {
  /** The resolved git executable. */
  readonly file: string;
  /** git's arguments, without the program. */
  readonly args: readonly string[];
  readonly cwd: string;
  /** The hardened environment the command itself gets. */
  readonly env: Readonly<Record<string, string>>;
  /** The host's unified-diff shim, the inert stand-in for a diff driver's command. */
  readonly externalDiff: string;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Before a git command runs, list the program-naming keys that the
 * repository's configuration (`.git/config`, the worktree config and every
 * file they include) sets, and return an inert override for each. Keys from
 * the user's global or system configuration are the user's own choice
 * (git-lfs registers its filter there) and are left alone. Reading
 * configuration runs nothing. If git cannot answer, the command is refused:
 * an unknown configuration is not assumed clean.
 */
export async function repositoryGitOverrides(options: RepositoryOverridesOptions): Promise<[string, string][] | undefined> {
  const probe = await spawnBounded({
    file: options.file,
    args: [...repositoryOptions(options.args), 'config', '--show-scope', '--null', '--name-only', '--get-regexp', DRIVER_KEYS],
    cwd: options.cwd,
    env: options.env,
    timeoutMs: 10_000,
    maxOutputBytes: 256 * 1024,
    killGraceMs: 500,
    signal: options.signal,
  });
  // Exit 1: no key matched. Anything else but success means the configuration could not be read.
  if (probe.exitCode === 1 && probe.stdout === '') return [];
  if (probe.exitCode !== 0 || probe.truncated || probe.spawnError !== undefined) return undefined;
  const fields = probe.stdout.split('\0');
  const overrides: [string, string][] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    const scope = fields[index] as string;
    const name = fields[index + 1] as string;
    if (REPOSITORY_SCOPES.has(scope)) overrides.push([name, inertValue(name, options.externalDiff)]);
  }
  return overrides;
}

/**
 * The global options that choose which repository (and so which
 * configuration) the command reads: the probe must read the same one.
 * Others (`--version`, `--no-pager`, …) are left out: they would change
 * what the probe itself does.
 */
function repositoryOptions(args: readonly string[]): string[] {
  const globals = args.slice(0, gitSubcommandIndex(['git', ...args]) - 1);
  const kept: string[] = [];
  for (let index = 0; index < globals.length; index += 1) {
    const arg = globals[index] as string;
    if (arg === '-C' || arg === '--git-dir' || arg === '--work-tree') kept.push(arg, globals[index + 1] ?? '');
    else if (arg.startsWith('--git-dir=') || arg.startsWith('--work-tree=') || arg === '--bare') kept.push(arg);
    if (GIT_VALUE_OPTIONS.has(arg)) index += 1;
  }
  return kept;
}

/** A value that makes the key harmless: no program, or the host's own. */
function inertValue(name: string, externalDiff: string): string {
  const key = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  switch (key) {
    case 'required':
      return 'false';
    case 'textconv':
      return 'cat';
    case 'command':
      return externalDiff;
    case 'driver':
    case 'program':
    case 'defaultkeycommand':
    case 'askpass':
      return 'false';
    case 'uploadpack':
      return 'git-upload-pack';
    case 'receivepack':
      return 'git-receive-pack';
    case 'gitproxy':
      return 'none';
    case 'alternaterefscommand':
      return 'true';
    default:
      // clean, smudge, process: empty means "no filter" to git.
      return '';
  }
}
