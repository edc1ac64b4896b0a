import type { ObjectStoreContent } from '../action/resolved-action.js';
import { unwrapCommand } from './exec-wrappers.js';
import { gitSubcommandIndex } from './git-danger.js';
import { programName } from './lookup-program.js';
import { endOfOptions, holdsForm, type OptionRule } from './option-forms.js';

/**
 * What of the repository's object store a git command can print or export:
 * `none`, content reached through the trees of commits and the index
 * (`paths`: `log -p`, `diff`, `grep HEAD`, `archive`), or any object,
 * reachable or not (`ids`: `cat-file`, `--batch-all-objects`). An id among
 * the arguments (`show 92dc429`) is judged by what it names (`objectIdsOf`).
 */
export type GitObjectReach = 'none' | 'paths' | 'ids';

/**
 * Subcommands that print names, ids and messages but no object's content,
 * each with the options that make it print a diff or a file (`status -v`,
 * `add -p`, `stash show`). Every other subcommand, an alias included, is
 * read as printing content: the list is what is known to print none.
 */
const NAMES_ONLY: ReadonlyMap<string, OptionRule> = new Map<string, OptionRule>([
  ...['init', 'rev-parse', 'ls-files', 'ls-tree', 'rev-list', 'remote', 'fetch', 'push', 'config', 'rm', 'mv', 'clean', 'switch', 'count-objects', 'gc', 'fsck', 'merge-base', 'var', 'version', 'help'].map(
    (name): [string, OptionRule] => [name, { form: name }],
  ),
  // A format's `%(raw)` prints the object a ref names whole: a blob, where a tag names one.
  ...['branch', 'tag'].map((name): [string, OptionRule] => [name, { form: `${name} --format=%(raw)`, check: (args) => args.some((arg) => arg.includes('%(raw')) }]),
  // History by names and messages (`log --oneline`, `reflog`): any option not known to print only those (`-p`, `-S`, an abbreviation) prints content.
  ...['log', 'reflog'].map((name): [string, OptionRule] => [name, { form: `${name} -p/-S/-G/-L/…`, check: (args) => args.slice(0, endOfOptions(args)).some((arg) => arg.startsWith('-') && !isNamesOnlyLogOption(arg)) }]),
  ['status', { form: 'status -v', long: [{ name: 'verbose' }], short: 'v', valued: 'u' }],
  ['add', { form: 'add -p/-i/-e', long: [{ name: 'patch' }, { name: 'interactive' }, { name: 'edit' }], short: 'pie' }],
  ['commit', { form: 'commit -v/-p', long: [{ name: 'verbose' }, { name: 'patch' }, { name: 'interactive' }], short: 'vp', valued: 'cCFmtu' }],
  ...['checkout', 'restore', 'reset'].map((name): [string, OptionRule] => [name, { form: `${name} -p`, long: [{ name: 'patch' }], short: 'p', valued: 'bBs' }]),
  ['stash', { form: 'stash show/-p', long: [{ name: 'patch' }], short: 'p', valued: 'm', actions: new Set(['show']) }],
]);

/**
 * `git log` options that print commits by their ids, names, messages and
 * changed paths, never a line of a file: spelled in full (git takes an
 * abbreviation, which is read as unknown). The pickaxe (`-S`, `-G`) is not
 * among them: it says which commits added a string, which reads a secret out
 * one guess at a time.
 */
const NAMES_ONLY_LOG_OPTIONS = new Set([
  'oneline', 'graph', 'decorate', 'no-decorate', 'all', 'branches', 'tags', 'remotes', 'max-count', 'skip', 'since', 'after', 'until', 'before',
  'author', 'committer', 'grep', 'all-match', 'invert-grep', 'regexp-ignore-case', 'reverse', 'first-parent', 'no-merges', 'merges', 'abbrev-commit',
  'no-abbrev-commit', 'date', 'relative-date', 'format', 'pretty', 'stat', 'shortstat', 'numstat', 'name-only', 'name-status', 'summary', 'no-color',
  'topo-order', 'date-order', 'author-date-order', 'follow', 'walk-reflogs', 'no-walk', 'ancestry-path', 'simplify-by-decoration', 'left-right', 'boundary',
]);

/** One option of `log` or `reflog` that prints no content: a long one of the list (its value after `=` aside), `-n` with its count, or a count (`-5`). */
function isNamesOnlyLogOption(arg: string): boolean {
  if (arg.startsWith('--')) {
    const equals = arg.indexOf('=');
    const value = equals === -1 ? '' : arg.slice(equals + 1);
    return NAMES_ONLY_LOG_OPTIONS.has(arg.slice(2, equals === -1 ? undefined : equals)) && !value.includes('%(raw');
  }
  return /^-(?:n?[0-9]+|n|g|i)$/.test(arg);
}

/** A run of hex digits an argument may name an object by, whole or abbreviated (`92dc429`, `92dc429:notes.txt`, `a1b2..c3d4`). */
const OBJECT_ID = /(?<![0-9A-Za-z])[0-9a-fA-F]{4,64}(?![0-9A-Za-z])/g;

/** Subcommands that read any object, by ids they are given on their input or find in the store. */
const BY_ID = new Set(['cat-file', 'unpack-objects', 'index-pack', 'unpack-file', 'show-index', 'verify-pack', 'pack-objects', 'mktree', 'diff-tree', 'diff-index', 'merge-file']);

/** What one git argv (program first) can print of the object store, its ids aside (`objectIdsOf`). */
export function gitObjectReach(argv: readonly string[]): GitObjectReach {
  const subcommand = gitSubcommandIndex(argv);
  const name = argv[subcommand];
  if (name === undefined) return 'none';
  const args = argv.slice(subcommand + 1);
  if (BY_ID.has(name) || args.includes('--batch-all-objects')) return 'ids';
  const rule = NAMES_ONLY.get(name);
  return rule === undefined || holdsForm(args, rule) ? 'paths' : 'none';
}

/**
 * Each run of four or more hex digits in a git argv's arguments, lower
 * case: what git may read as an object's id. A subcommand that prints
 * nothing of an object still makes it reachable under an ordinary name
 * (`tag t <id>`, `update-index --cacheinfo 100644,<id>,notes.txt`).
 */
export function objectIdsOf(argv: readonly string[]): readonly string[] {
  const ids: string[] = [];
  for (const arg of argv.slice(1)) for (const match of arg.matchAll(OBJECT_ID)) ids.push(match[0].toLowerCase());
  return ids;
}

/**
 * Options that make git print from the stores of submodules too
 * (`grep --recurse-submodules SALT HEAD`, `diff --submodule=diff`), which
 * the host does not read: a command printing content with one is judged as
 * holding a protected file. The host pins `submodule.recurse=false` and
 * `diff.submodule=short`, so only the command line recurses.
 */
const INTO_SUBMODULES: OptionRule = { form: 'git --recurse-submodules/--submodule', long: [{ name: 'recurse-submodules' }, { name: 'submodule' }] };

/** A git command that can print or reach the object store: its argv, what it prints, the ids it names, and whether it prints from submodules. */
export interface GitObjectReader {
  readonly argv: readonly string[];
  readonly reach: GitObjectReach;
  readonly ids: readonly string[];
  readonly intoSubmodules: boolean;
}

/**
 * The git command a command runs, itself or behind exec wrappers (an exact
 * entry `timeout 5 git log -p`; a glob refuses a wrapped git), when it can
 * print the object store or names an object by id; undefined otherwise.
 * Behind a wrapper, git's argv starts at the first argument naming git:
 * read from there, a wrapper's own options can only make it print more.
 */
export function gitObjectReader(argv: readonly string[]): GitObjectReader | undefined {
  const isGit = (arg: string): boolean => programName(arg) === 'git';
  const at = isGit(argv[0] ?? '') ? 0 : unwrapCommand(argv) === undefined ? -1 : argv.findIndex(isGit);
  if (at === -1) return undefined;
  const command = argv.slice(at);
  const reach = gitObjectReach(command);
  const ids = objectIdsOf(command);
  if (reach === 'none' && ids.length === 0) return undefined;
  return { argv: command, reach, ids, intoSubmodules: reach !== 'none' && holdsForm(command.slice(gitSubcommandIndex(command) + 1), INTO_SUBMODULES) };
}

/**
 * The folder git finds its repository from: the working directory, then
 * each `-C` in turn (`git -C a -C b` works in `a/b`), spelled as the host
 * reads a command's argument paths. An absolute `-C` is the floor's to refuse.
 * Undefined when `--git-dir` names the repository (an exact entry may): no
 * host is asked, and the store is judged as holding a protected file.
 */
export function gitRepositoryFolder(argv: readonly string[], cwd: string): string | undefined {
  let folder = cwd;
  const end = Math.min(gitSubcommandIndex(argv), endOfOptions(argv));
  for (let index = 1; index < end; index += 1) {
    if (argv[index]?.startsWith('--git-dir') === true) return undefined;
    if (argv[index] !== '-C') continue;
    const next = argv[index + 1] ?? '';
    if (next !== '' && next !== '.') folder = folder === '.' ? next : `${folder}/${next}`;
    index += 1;
  }
  return folder;
}

/**
 * Whether a command's git prints what the object store holds of a
 * protected file: when history or an index names a protected path, any
 * command that prints content or names an id; when the store holds objects
 * nothing reaches (a `.env` once added and taken out), a command that reads
 * any object, or one naming an id that may be one of them. Judged as
 * holding when the host did not say (no host, or it could not tell), and
 * when the command prints from submodules' stores too.
 */
export function readsProtectedObjects(argv: readonly string[], store: ObjectStoreContent | undefined): boolean {
  const reader = gitObjectReader(argv);
  if (reader === undefined) return false;
  if (store === undefined || store.protectedNames || reader.intoSubmodules) return true;
  return (reader.reach === 'ids' && store.unreachable) || store.namesUnreachable;
}
