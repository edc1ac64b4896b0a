import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolPolicyError } from '../../core/internal.js';
import { GIT_VALUE_OPTIONS, gitSubcommandIndex } from '../../core/policy/git-danger.js';
import { matchesLongOption } from '../../core/policy/option-forms.js';
import { withGitConfig } from './build-child-env.js';
import { exists, findLinkedWorktreeGitDirs, findModuleGitDirs } from './find-git-directories.js';
import { inBatches } from './in-batches.js';
import { scopedConfigEntries } from './scoped-config-entries.js';
import { spawnBounded, type BoundedResult } from './spawn-bounded.js';

/**
 * Keys through which a repository's own configuration makes git run a
 * program, under a name the repository chooses (`filter.<driver>.clean`,
 * `diff.<driver>.textconv`, `alias.<name>`, …). No fixed list of
 * `GIT_CONFIG_*` overrides can name them in advance, so git is asked.
 * Names are matched as git canonicalises them: section and key lower case.
 *
 * Every repository alias is included, not only `!shell` ones: an alias
 * expands before any policy sees the arguments, so `alias.x = -c
 * core.pager=… log` or `= rebase -x …` runs a program as surely as `!…`.
 * Fixed names that the host pins for every scope (`core.pager`,
 * `core.editor`, `core.hooksPath`, …) are in `gitHardeningEnv` instead.
 */
const PROGRAM_KEYS = [
  'alias\\..+',
  'filter\\..+\\.(clean|smudge|process|required)',
  'diff\\..+\\.(command|textconv)',
  'merge\\..+\\.driver',
  '(diff|merge)tool\\..+\\.(cmd|path)',
  '(man|browser)\\..+\\.(cmd|path)',
  'guitool\\..+\\.cmd',
  'remote\\..+\\.(uploadpack|receivepack)',
  'submodule\\..+\\.update',
  'trailer\\..+\\.(command|cmd)',
  'tar\\..+\\.command',
  'hook\\..+\\.command',
  'sendemail\\.(.+\\.)?(smtpserver|tocmd|cccmd|headercmd)',
  'instaweb\\.httpd',
  'imap\\.tunnel',
  'interactive\\.difffilter',
  'core\\.(gitproxy|alternaterefscommand|askpass)',
  'gpg\\.(.+\\.)?(program|defaultkeycommand)',
];
const DRIVER_PATTERN = new RegExp(`^(${PROGRAM_KEYS.join('|')})$`);
/**
 * A conditional include (`includeIf.<condition>.path`) is read only where its
 * condition holds, and git decides that afresh in every process: a probe in
 * the command's repository on its branch does not read a file included
 * `onbranch:other` or under a `gitdir:` that names a linked worktree, while
 * the git that `worktree add` starts in the new worktree does, and runs the
 * drivers it names. Such a repository is refused rather than guessed at.
 */
const CONDITIONAL_INCLUDE = 'includeif\\..+\\.path';
export const PROBED_KEYS = `^(${PROGRAM_KEYS.join('|')}|${CONDITIONAL_INCLUDE})$`;

/** Configuration the repository itself controls; a model that can write files can write these. */
const REPOSITORY_SCOPES = new Set(['local', 'worktree']);
/** `submodule.<name>.update` values that name no program (anything else, `!cmd` included, is neutralised). */
const SUBMODULE_UPDATE_MODES = new Set(['checkout', 'rebase', 'merge', 'none']);
/** Repositories read per command (the one the command starts in and every submodule); beyond this the command is refused. */
const MAX_REPOSITORIES = 256;
const MAX_NESTING = 8;
/** Directories looked at under `.git/modules` per command; beyond this the command is refused. */
const MAX_MODULE_DIRECTORIES = 8192;
const PROBE_CONCURRENCY = 8;

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
  /** Named in a refusal. */
  readonly tool?: string | undefined;
}

/**
 * Before a git command runs, list the program-naming keys that the
 * configuration of every repository the command can reach sets, and return
 * an inert override for each. Reached are: the repository the command
 * starts in (`.git/config`, the worktree config and every file they
 * include), every checked-out submodule, nested ones too (`git status` and
 * `git add` run git inside them, with their own configuration), and every
 * submodule git directory under `.git/modules` (`git submodule update`
 * checks out into them). `GIT_CONFIG_COUNT` reaches the git processes
 * started inside submodules, so one set of overrides covers them all.
 *
 * Keys from the user's global or system configuration are the user's own
 * choice (git-lfs registers its filter there) and are left alone. Reading
 * configuration runs nothing. If git cannot answer, a name cannot be passed
 * back intact (not UTF-8), or there are too many submodules, the result is
 * undefined and the command is refused: an unknown configuration is not
 * assumed clean.
 *
 * `git clone -c key=value` writes configuration into the repository it
 * creates and checks out with it in the same process: program-naming keys
 * given that way get an inert override too. A template (`--template`) or an
 * include given that way cannot be vetted before the command runs, so the
 * command is refused (`ToolPolicyError`).
 */
export async function repositoryGitOverrides(options: RepositoryOverridesOptions): Promise<[string, string][] | undefined> {
  const overrides = new Map<string, string>();
  for (const [name, value] of argumentOverrides(options)) overrides.set(name, value);
  const read = await readRepositories(options, overrides);
  return read ? [...overrides] : undefined;
}

type Run = (args: readonly string[], maxOutputBytes?: number) => Promise<BoundedResult>;

interface Location {
  /** The options that select the repository (`-C dir`, `--git-dir dir`, …). */
  readonly args: readonly string[];
  /** The directory relative paths in git's answers are relative to. */
  readonly base: string;
  /** A submodule found in another repository's index (not where the command starts). */
  readonly nested: boolean;
}

interface WorktreeRead {
  readonly gitDir?: string;
  readonly commonDir?: string;
  readonly submodules: readonly Location[];
}

async function readRepositories(options: RepositoryOverridesOptions, overrides: Map<string, string>): Promise<boolean> {
  // Byte-wise regular expressions: under a UTF-8 locale git's `.` matches no byte that is not UTF-8, and a key so named would go unlisted.
  // And no fetch: these run on the host, before the overrides exist, and in a partial clone a missing object is
  // fetched on demand through the upload-pack the repository names (`remote.<r>.uploadpack`). git refuses the
  // transport, so the probe fails and the command is refused; a newer git does not even try.
  const env = withGitConfig({ ...options.env, LC_ALL: 'C', GIT_NO_LAZY_FETCH: '1' }, [
    ['protocol.allow', 'never'],
    ['protocol.file.allow', 'never'],
  ]);
  const run: Run = (args, maxOutputBytes = 256 * 1024) => spawnBounded({ file: options.file, args, cwd: options.cwd, env, timeoutMs: 10_000, maxOutputBytes, killGraceMs: 500, signal: options.signal });
  const start = repositoryOptions(options.args);
  const seen = new Set<string>();
  const commonDirs = new Set<string>();
  let count = 0;
  let level: readonly Location[] = [{ args: start, base: effectiveCwd(options.cwd, start), nested: false }];
  for (let depth = 0; level.length > 0; depth += 1) {
    count += level.length;
    if (depth > MAX_NESTING || count > MAX_REPOSITORIES) return false;
    const reads = await inBatches(level, PROBE_CONCURRENCY, (location) => readWorktreeRepository(run, location, options.externalDiff, overrides));
    const next: Location[] = [];
    for (const read of reads) {
      if (read === undefined) return false;
      if (read.commonDir !== undefined) commonDirs.add(read.commonDir);
      // A repository reached twice (a `.git` that leads back to one already read) is not walked again.
      if (read.gitDir !== undefined && seen.has(read.gitDir)) continue;
      if (read.gitDir !== undefined) seen.add(read.gitDir);
      next.push(...read.submodules);
    }
    level = next;
  }
  // Submodule git directories with no checkout here: `git submodule update` checks out into them. Linked
  // worktrees' git directories: `git worktree remove` runs `git status` in each, with its own `config.worktree`.
  const found: string[] = [];
  const budget = { left: MAX_MODULE_DIRECTORIES };
  const visited = new Set<string>();
  for (const commonDir of commonDirs) {
    if (!(await findModuleGitDirs(path.join(commonDir, 'modules'), found, budget, visited))) return false;
    if (!(await findLinkedWorktreeGitDirs(path.join(commonDir, 'worktrees'), found, budget))) return false;
  }
  const unread = [...new Set(found)].filter((gitDir) => !seen.has(gitDir));
  if (count + unread.length > MAX_REPOSITORIES) return false;
  const reads = await inBatches(unread, PROBE_CONCURRENCY, (gitDir) => readConfig(run, ['--git-dir', gitDir], options.externalDiff, overrides));
  return reads.every(Boolean);
}

/**
 * One repository with (possibly) a working tree: its configuration, where
 * its git directories are, and its checked-out submodules (every gitlink in
 * the index whose directory holds a `.git`).
 */
async function readWorktreeRepository(run: Run, location: Location, externalDiff: string, overrides: Map<string, string>): Promise<WorktreeRead | undefined> {
  const [config, layout, index] = await Promise.all([
    readConfig(run, location.args, externalDiff, overrides),
    run([...location.args, 'rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir']),
    run([...location.args, 'ls-files', '--stage', '-z', '--full-name', '--', ':/'], 128 * 1024 * 1024),
  ]);
  const noWorktree = layout.exitCode !== 0 || layout.spawnError !== undefined;
  // A submodule directory whose `.git` git cannot open: git skips or stops there too, and runs nothing in it.
  if (!config) return location.nested && noWorktree ? { submodules: [] } : undefined;
  // No working tree (a bare repository, or none at all): nothing is checked out, so no submodule either.
  if (noWorktree) return { submodules: [] };
  const [toplevel, gitDir, commonDir] = layout.stdout.split('\n');
  if (toplevel === undefined || gitDir === undefined || commonDir === undefined || layout.truncated || layout.stdout.includes('\uFFFD')) return undefined;
  // A nested repository's `core.worktree` can lead into a git folder (`../../.git/hooks`): git would check its
  // files out there, a hook or a `config` the user's git then runs.
  if (insideGitFolder(await realpath(toplevel).catch(() => toplevel))) return undefined;
  if (index.exitCode !== 0 || index.truncated || index.spawnError !== undefined) return undefined;
  const submodules: Location[] = [];
  for (const entry of index.stdout.split('\0')) {
    if (!entry.startsWith('160000 ')) continue;
    const relative = entry.slice(entry.indexOf('\t') + 1);
    // A path that is not UTF-8 cannot be named back to the filesystem intact.
    if (relative.includes('\uFFFD')) return undefined;
    const directory = path.join(toplevel, relative);
    if (await exists(path.join(directory, '.git'))) submodules.push({ args: ['-C', directory], base: directory, nested: true });
  }
  return {
    gitDir: await realpath(gitDir).catch(() => gitDir),
    commonDir: path.resolve(location.base, commonDir),
    submodules,
  };
}

/** One repository's configuration: an inert override for each program-naming key its own scopes set. False when git cannot answer, or they hold a conditional include. */
async function readConfig(run: Run, location: readonly string[], externalDiff: string, overrides: Map<string, string>): Promise<boolean> {
  const probe = await run([...location, 'config', '--show-scope', '--null', '--get-regexp', PROBED_KEYS]);
  // Exit 1: no key matched. Anything else but success means the configuration could not be read.
  if (probe.exitCode === 1 && probe.stdout === '') return true;
  if (probe.exitCode !== 0 || probe.truncated || probe.spawnError !== undefined) return false;
  for (const { scope, name, value } of scopedConfigEntries(probe.stdout)) {
    // A name that is not UTF-8 would come back altered, and the override would miss the key it is for.
    if (name.includes('\uFFFD')) return false;
    if (!REPOSITORY_SCOPES.has(scope)) continue;
    if (name.startsWith('includeif.')) return false;
    const inert = inertOverride(name, value, externalDiff);
    if (inert !== undefined) overrides.set(inert[0], inert[1]);
  }
  return true;
}

/**
 * Overrides the command's own arguments call for. A push or an archive may
 * not use the local (`file`) transport. For what `git clone -c key=value` (`--config`, clustered
 * `-qc`, abbreviated `--conf`) writes into the new repository; a refusal
 * for `--template` (clone and init) and for an include given that way.
 * Scanning is conservative: a `-c` that is really another option's value
 * only adds an override.
 */
function argumentOverrides(options: RepositoryOverridesOptions): [string, string][] {
  const argv = ['git', ...options.args];
  const index = gitSubcommandIndex(argv);
  const subcommand = argv[index];
  // Over a local transport git clears the configuration it passes on, so the receiving repository of a push
  // (its hooks) or of `archive --remote` (its tar.*.command) would run unhardened: refuse those transports.
  if (subcommand === 'push' || subcommand === 'send-pack' || subcommand === 'archive') return [['protocol.file.allow', 'never']];
  if (subcommand !== 'clone' && subcommand !== 'init') return [];
  const rest = argv.slice(index + 1);
  const end = rest.indexOf('--');
  const args = end === -1 ? rest : rest.slice(0, end);
  const values: string[] = [];
  for (let position = 0; position < args.length; position += 1) {
    const arg = args[position] as string;
    if (matchesLongOption(arg, [{ name: 'template' }])) throw refusal(options.tool);
    if (subcommand !== 'clone') continue;
    if (matchesLongOption(arg, [{ name: 'config' }])) {
      const equals = arg.indexOf('=');
      values.push(equals === -1 ? (args[position + 1] ?? '') : arg.slice(equals + 1));
    } else if (/^-[^-]/.test(arg)) {
      for (let letter = 1; letter < arg.length; letter += 1) {
        if (arg[letter] === 'c') {
          values.push(letter + 1 < arg.length ? arg.slice(letter + 1) : (args[position + 1] ?? ''));
          break;
        }
        // The rest of the cluster is the value of -b, -j, -o or -u.
        if ('bjou'.includes(arg[letter] as string)) break;
      }
    }
  }
  const overrides: [string, string][] = [];
  for (const pair of values) {
    const equals = pair.indexOf('=');
    const name = canonicalKey(equals === -1 ? pair : pair.slice(0, equals));
    if (/^include(if)?\./i.test(name)) throw refusal(options.tool);
    const inert = DRIVER_PATTERN.test(name) ? inertOverride(name, equals === -1 ? undefined : pair.slice(equals + 1), options.externalDiff) : undefined;
    if (inert !== undefined) overrides.push(inert);
  }
  return overrides;
}

function refusal(tool: string | undefined): ToolPolicyError {
  return new ToolPolicyError(tool ?? 'host', 'command_not_allowed', {
    detail: 'was refused: git would seed the new repository from a template or an included file, which the host cannot vet',
  });
}

/** `Section.Sub.Key` as git stores it: section and key lower case, the subsection as given. */
function canonicalKey(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === -1) return key.toLowerCase();
  return key.slice(0, first).toLowerCase() + key.slice(first, last) + key.slice(last).toLowerCase();
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

/** The directory git works in after the `-C` options. */
function effectiveCwd(cwd: string, args: readonly string[]): string {
  let directory = cwd;
  for (let index = 0; index < args.length; index += 1) {
    if (args[index] === '-C') {
      const next = args[index + 1] ?? '';
      if (next !== '') directory = path.resolve(directory, next);
      index += 1;
    }
  }
  return directory;
}

/**
 * The override that makes a key harmless. For most keys a later value wins,
 * so the key itself gets one that names no program, or the host's own. git
 * takes the first of several `remote.<r>.uploadpack`/`receivepack` values
 * and the first `core.gitProxy` that matches, so a later one changes
 * nothing: the transport that runs them, the local one and the git
 * protocol, is refused instead.
 */
function inertOverride(name: string, value: string | undefined, externalDiff: string): [string, string] | undefined {
  if (name.startsWith('remote.')) return ['protocol.file.allow', 'never'];
  if (name === 'core.gitproxy') return ['protocol.git.allow', 'never'];
  const inert = inertValue(name, value, externalDiff);
  return inert === undefined ? undefined : [name, inert];
}

/** A value that makes the key harmless: no program, or the host's own, or (undefined) none needed. */
function inertValue(name: string, value: string | undefined, externalDiff: string): string | undefined {
  const section = name.slice(0, name.indexOf('.'));
  const key = name.slice(name.lastIndexOf('.') + 1);
  switch (section) {
    case 'alias':
      // git then stops: "expansion of alias failed; '' is not a git command".
      return '';
    case 'filter':
      // clean, smudge, process: empty means "no filter" to git.
      return key === 'required' ? 'false' : '';
    case 'diff':
      return key === 'textconv' ? 'cat' : externalDiff;
    case 'submodule':
      return value !== undefined && SUBMODULE_UPDATE_MODES.has(value) ? undefined : 'none';
    case 'tar':
      return name === 'tar.tgz.command' || name === 'tar.tar.gz.command' ? 'gzip -cn' : 'cat';
    case 'trailer':
    case 'hook':
      return 'true';
    case 'sendemail':
      return key === 'smtpserver' ? '' : 'true';
    case 'imap':
      return '';
    case 'interactive':
      return 'cat';
    case 'core':
      return key === 'alternaterefscommand' ? 'true' : 'false';
    default:
      // merge drivers, difftool/mergetool/man/browser/guitool commands and paths, instaweb.httpd, gpg programs.
      return 'false';
  }
}

/** Whether a path lies in a folder named `.git`, where no working tree belongs. */
function insideGitFolder(target: string): boolean {
  return target.split(path.sep).includes('.git');
}
