import type { ObjectStoreContent } from '../action/resolved-action.js';
import { unwrapCommand } from './exec-wrappers.js';
import { gitSubcommandIndex } from './git-danger.js';
import { programName } from './lookup-program.js';
import { endOfOptions, holdsForm, type OptionRule } from './option-forms.js';

/**
 * What of the repository's object store a git command can print or export:
 * `none`, content reached through the trees of commits and the index
 * (`paths`: `log -p`, `diff`, `grep HEAD`, `archive`), or any object by its
 * id, reachable or not (`ids`: `cat-file`, `show <blob id>`,
 * `--batch-all-objects`).
 */
export type GitObjectReach = 'none' | 'paths' | 'ids';

/**
 * Subcommands that print names, ids and messages but no object's content,
 * each with the options that make it print a diff or a file (`status -v`,
 * `add -p`, `stash show`). Every other subcommand, an alias included, is
 * read as printing content: the list is what is known to print none.
 */
const NAMES_ONLY: ReadonlyMap<string, OptionRule> = new Map<string, OptionRule>([
  ...['init', 'rev-parse', 'ls-files', 'ls-tree', 'rev-list', 'branch', 'tag', 'remote', 'fetch', 'push', 'config', 'rm', 'mv', 'clean', 'switch', 'count-objects', 'gc', 'fsck', 'merge-base', 'var', 'version', 'help'].map(
    (name): [string, OptionRule] => [name, { form: name }],
  ),
  ['status', { form: 'status -v', long: [{ name: 'verbose' }], short: 'v', valued: 'u' }],
  ['add', { form: 'add -p/-i/-e', long: [{ name: 'patch' }, { name: 'interactive' }, { name: 'edit' }], short: 'pie' }],
  ['commit', { form: 'commit -v/-p', long: [{ name: 'verbose' }, { name: 'patch' }, { name: 'interactive' }], short: 'vp', valued: 'cCFmtu' }],
  ...['checkout', 'restore', 'reset'].map((name): [string, OptionRule] => [name, { form: `${name} -p`, long: [{ name: 'patch' }], short: 'p', valued: 'bBs' }]),
  ['stash', { form: 'stash show/-p', long: [{ name: 'patch' }], short: 'p', valued: 'm', actions: new Set(['show']) }],
]);

/** An argument naming an object by its id, whole or abbreviated (`92dc429`, `92dc429:notes.txt`, `a1b2..c3d4`). */
const OBJECT_ID = /(?:^|[^0-9A-Za-z])[0-9a-fA-F]{4,64}(?=$|[^0-9A-Za-z])/;

/** Subcommands that read objects by id whatever their arguments. */
const BY_ID = new Set(['cat-file', 'unpack-objects', 'index-pack', 'unpack-file', 'show-index', 'verify-pack', 'pack-objects', 'mktree', 'diff-tree', 'diff-index', 'merge-file']);

/** What one git argv (program first) can print of the object store. */
export function gitObjectReach(argv: readonly string[]): GitObjectReach {
  const subcommand = gitSubcommandIndex(argv);
  const name = argv[subcommand];
  if (name === undefined) return 'none';
  const args = argv.slice(subcommand + 1);
  if (BY_ID.has(name) || args.includes('--batch-all-objects') || args.some((arg) => OBJECT_ID.test(arg))) return 'ids';
  const rule = NAMES_ONLY.get(name);
  return rule === undefined || holdsForm(args, rule) ? 'paths' : 'none';
}

/**
 * The git command a command runs, itself or behind exec wrappers (an exact
 * entry `timeout 5 git log -p`; a glob refuses a wrapped git), when it can
 * print the object store, and what it reaches; undefined otherwise. Behind
 * a wrapper, git's argv starts at the first argument naming git: read from
 * there, a wrapper's own options can only make it print more.
 */
export function gitObjectReader(argv: readonly string[]): { readonly argv: readonly string[]; readonly reach: GitObjectReach } | undefined {
  const isGit = (arg: string): boolean => programName(arg) === 'git';
  const at = isGit(argv[0] ?? '') ? 0 : unwrapCommand(argv) === undefined ? -1 : argv.findIndex(isGit);
  if (at === -1) return undefined;
  const command = argv.slice(at);
  const reach = gitObjectReach(command);
  return reach === 'none' ? undefined : { argv: command, reach };
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
 * protected file: content through history or the index when they name a
 * protected path, any object by id when the store also holds objects no
 * ref, reflog or index reaches (a `.env` once added and taken out). Judged
 * as holding when the host did not say (no host, or it could not tell).
 */
export function readsProtectedObjects(argv: readonly string[], store: ObjectStoreContent | undefined): boolean {
  const reader = gitObjectReader(argv);
  if (reader === undefined) return false;
  if (store === undefined || store.protectedNames) return true;
  return reader.reach === 'ids' && store.unreachable;
}
