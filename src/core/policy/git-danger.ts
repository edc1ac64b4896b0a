import { clusterHolds, endOfOptions, holdsForm, matchesLongOption, type LongForm, type OptionRule } from './option-forms.js';

// git options that must come before the subcommand to act globally: they run a program or point git at another tree.
const GIT_GLOBAL = [/^-c/, /^--config-env(=|$)/, /^--exec-path(=|$)/, /^--work-tree(=|$)/, /^--git-dir(=|$)/, /^-p$/, /^--paginate$/];
const GIT_GLOBAL_FORM = 'git -c/--config-env/--exec-path/--work-tree/--git-dir/-p/--paginate';
// Git global options that take a separate value, so the subcommand comes later.
export const GIT_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-C', '-c', '--config-env', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--list-cmds', '--attr-source']);

// Anywhere after the subcommand, whichever it is (before `--`).
const GIT_ANYWHERE: OptionRule = {
  form: 'git --output/--upload-pack/--receive-pack/--exec/-u/--ext-diff/--textconv',
  long: [{ name: 'output' }, { name: 'upload-pack' }, { name: 'receive-pack' }, { name: 'exec' }, { name: 'ext-diff' }, { name: 'textconv', min: 5 }],
};

/**
 * Forms that run a program or write where they are told only for one
 * subcommand: `-x` is harmless for `cherry-pick` but runs a command for
 * `rebase` and `difftool`; `-c` counts matches for `grep` but writes
 * configuration for `clone`; `-o` names the file `archive` writes.
 */
const GIT_SUBCOMMANDS: ReadonlyMap<string, OptionRule> = new Map<string, OptionRule>([
  ['difftool', { form: 'git difftool -x/--extcmd', long: [{ name: 'extcmd' }], short: 'x', valued: 'tx' }],
  ['grep', { form: 'git grep -O/--open-files-in-pager', long: [{ name: 'open-files-in-pager' }], short: 'O', valued: 'ABCefmO' }],
  ['rebase', { form: 'git rebase -x/--exec', short: 'x', valued: 'CrSsXx' }],
  ['bisect', { form: 'git bisect run', actions: new Set(['run']) }],
  ['submodule', { form: 'git submodule foreach', actions: new Set(['foreach']) }],
  [
    'clone',
    {
      form: 'git clone -c/--config/--template/--separate-git-dir/-u/--upload-pack',
      long: [{ name: 'config' }, { name: 'template' }, { name: 'separate-git-dir' }, { name: 'upload-pack' }],
      short: 'cu',
      valued: 'bcjou',
    },
  ],
  // `--separate-git-dir` makes a folder a command prepared (configuration and hooks included) the repository of the
  // folder git initialises: a submodule's empty folder, which the user's git then enters, or the workspace's own.
  ['init', { form: 'git init --template/--separate-git-dir', long: [{ name: 'template' }, { name: 'separate-git-dir' }], valued: 'b' }],
  ['archive', { form: 'git archive -o/--output', short: 'o' }],
  // The prefix is joined to each entry's path as a string, not a folder: `.gi` and `t/hooks/pre-commit` write
  // `.git/hooks/pre-commit`, though neither names the repository's folder.
  ['checkout-index', { form: 'git checkout-index --prefix', long: [{ name: 'prefix' }] }],
  // Lets a patch write where it names, `.git/hooks/pre-commit` included, which git otherwise refuses as a path.
  ['apply', { form: 'git apply --unsafe-paths', long: [{ name: 'unsafe-paths' }] }],
  // Lets the stream on standard input name the marks files it writes, `.git/config` included.
  ['fast-import', { form: 'git fast-import --allow-unsafe-features', long: [{ name: 'allow-unsafe-features' }] }],
  // Runs the program it is given for each unmerged entry.
  ['merge-index', { form: 'git merge-index', always: true }],
  ['format-patch', { form: 'git format-patch -o/--output-directory', long: [{ name: 'output-directory' }], short: 'o', valued: 'v' }],
  ['config', { form: 'git config writing configuration', check: writesConfiguration }],
  ['maintenance', { form: 'git maintenance start/register', actions: new Set(['start', 'register']) }],
  [
    'filter-branch',
    {
      form: 'git filter-branch --*-filter/--setup',
      long: ['tree-filter', 'index-filter', 'env-filter', 'msg-filter', 'commit-filter', 'tag-name-filter', 'parent-filter', 'setup'].map((name) => ({ name, min: name.length })),
    },
  ],
  ['daemon', { form: 'git daemon --access-hook', long: [{ name: 'access-hook' }] }],
  // send-email runs the sendmail program these name (an absolute `--smtp-server` is one) and the address commands.
  [
    'send-email',
    {
      form: 'git send-email --smtp-server/--sendmail-cmd/--to-cmd/--cc-cmd/--header-cmd',
      // `--to` and `--cc` are addresses: only a prefix past them reaches `--to-cmd` and `--cc-cmd`.
      long: [{ name: 'smtp-server' }, { name: 'sendmail-cmd' }, { name: 'to-cmd', min: 4 }, { name: 'cc-cmd', min: 4 }, { name: 'header-cmd' }],
    },
  ],
  ['for-each-repo', { form: 'git for-each-repo', always: true }],
  ['instaweb', { form: 'git instaweb', always: true }],
]);

// git's internal helpers (`submodule--helper foreach`, `bisect--helper --bisect-run`) and remote helpers (`remote-ext`) are never needed directly.
const GIT_INTERNAL: OptionRule = { form: 'git internal or remote helper', always: true };

/**
 * Where git's subcommand sits in `argv` (program first): past the global
 * options, including the separate value of `-C`, `-c`, `--git-dir` and the
 * like. `argv.length` when there is none.
 */
export function gitSubcommandIndex(argv: readonly string[]): number {
  let index = 1;
  for (; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (!arg.startsWith('-')) break;
    if (GIT_VALUE_OPTIONS.has(arg)) index += 1;
  }
  return Math.min(index, argv.length);
}

/** The git form `argv` (program first) holds, or undefined. */
export function gitDanger(argv: readonly string[]): string | undefined {
  const subcommand = gitSubcommandIndex(argv);
  for (let index = 1; index < subcommand; index += 1) {
    const arg = argv[index] as string;
    if (GIT_GLOBAL.some((form) => form.test(arg))) return GIT_GLOBAL_FORM;
    if (arg === '-C' && leavesWorkspace(argv[index + 1] ?? '')) return 'git -C outside the workspace';
  }
  const args = argv.slice(subcommand + 1);
  // `-u` names upload-pack for clone; elsewhere it is refused alone, as it always was.
  if (holdsForm(args, GIT_ANYWHERE) || args.slice(0, endOfOptions(args)).includes('-u')) return GIT_ANYWHERE.form;
  const name = argv[subcommand];
  if (name === undefined) return undefined;
  const rule = name.includes('--') || name.startsWith('remote-') ? GIT_INTERNAL : GIT_SUBCOMMANDS.get(name);
  return rule !== undefined && holdsForm(args, rule) ? rule.form : undefined;
}

/**
 * `-C dir` with a directory the floor cannot place inside the workspace:
 * absolute, from a home directory, or climbing with `..`. git then works
 * (checks out, writes hooks' targets) there, as `--work-tree` would.
 */
function leavesWorkspace(directory: string): boolean {
  return /^([\\/]|~|[A-Za-z]:)/.test(directory) || directory.split(/[\\/]/).includes('..');
}

/**
 * `git config` writing configuration, in any scope: the repository's own
 * (`core.fsmonitor`, `core.pager`, an alias, a filter driver: each runs a
 * program at the next git command) as much as the global, system or a
 * named file. Reading (`--get*`, `--list`/`-l`, `get`, `list`, a single
 * name) stays allowed. Without a read option or verb, two or more plain
 * arguments (past the separate values of `--file`, `--blob`, `--type`,
 * `--default`, `--comment`, `-f`) are a write.
 */
function writesConfiguration(args: readonly string[]): boolean {
  const writes: readonly LongForm[] = ['add', 'replace-all', 'unset', 'unset-all', 'rename-section', 'remove-section', 'edit'].map((name) => ({ name }));
  const reads: readonly LongForm[] = ['get', 'get-all', 'get-regexp', 'get-urlmatch', 'get-color', 'get-colorbool', 'list'].map((name) => ({ name }));
  const valued: readonly LongForm[] = ['file', 'blob', 'type', 'default', 'comment'].map((name) => ({ name }));
  let write = false;
  let read = false;
  const positionals: string[] = [];
  const end = endOfOptions(args);
  for (let index = 0; index < end; index += 1) {
    const arg = args[index] as string;
    if (arg.startsWith('--')) {
      write ||= matchesLongOption(arg, writes);
      read ||= matchesLongOption(arg, reads);
      if (!arg.includes('=') && matchesLongOption(arg, valued)) index += 1;
    } else if (arg.length > 1 && arg.startsWith('-')) {
      write ||= clusterHolds(arg, 'e', 'f');
      read ||= clusterHolds(arg, 'l', 'f');
      if (arg.endsWith('f') && clusterHolds(arg, 'f', '')) index += 1;
    } else {
      positionals.push(arg);
    }
  }
  // git drops the `--` and reads what follows as the name and value: `git config -- core.fsmonitor prog` writes.
  if (args[end] === '--') positionals.push(...args.slice(end + 1));
  const verb = positionals[0];
  if (verb === 'set' || verb === 'unset' || verb === 'rename-section' || verb === 'remove-section' || verb === 'edit') return true;
  return write || (!read && verb !== 'get' && verb !== 'list' && positionals.length >= 2);
}
