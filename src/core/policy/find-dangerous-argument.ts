import { sedDanger } from './sed-danger.js';

/**
 * Argument forms that make an otherwise read-only program execute code or
 * write files. They are refused even when an allowlist glob admits the
 * command: `git -c core.pager=sh …`, `find -exec`, `rg --pre`, `sed e`.
 * The program is identified by the basename of argv[0], so a path-qualified
 * name an exact rule admitted is still checked.
 */
export interface DangerousArgument {
  readonly program: string;
  /** A short, fixed description of the form (never the argument's value). */
  readonly form: string;
}

// git options that must come before the subcommand to act globally.
const GIT_GLOBAL = [/^-c/, /^--config-env(=|$)/, /^--exec-path(=|$)/, /^-p$/, /^--paginate$/];
// Git global options that take a separate value, so the subcommand comes later.
export const GIT_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-C', '-c', '--config-env', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--list-cmds', '--attr-source']);
const FIND_FORMS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

/**
 * A long option. Most git commands parse options with parse-options, which
 * accepts any unambiguous prefix (`--exe` for `--exec`, `--conf` for
 * `--config`), so every prefix of at least `min` characters counts. `min`
 * is above 1 only where a shorter prefix is another option's full name
 * (`--text` is not `--textconv`).
 */
export interface LongForm {
  readonly name: string;
  readonly min?: number;
}

/** What a git subcommand (or every subcommand) refuses after its name. */
interface GitRule {
  readonly form: string;
  readonly long?: readonly LongForm[];
  /** Short options refused, alone or anywhere in a cluster (`-yx`, `-nOcmd`). */
  readonly short?: string;
  /** Short options that take a value: in a cluster, whatever follows one is that value, not more options. */
  readonly valued?: string;
  /** Refused when the first non-option argument is one of these (`bisect run`, `submodule foreach`). */
  readonly actions?: ReadonlySet<string>;
  /** The subcommand is refused whatever its arguments. */
  readonly always?: boolean;
  /** A check no table expresses. */
  readonly check?: (args: readonly string[]) => boolean;
}

// Anywhere after the subcommand, whichever it is (before `--`).
const GIT_ANYWHERE: GitRule = {
  form: 'git --output/--upload-pack/--receive-pack/--exec/-u/--ext-diff/--textconv',
  long: [{ name: 'output' }, { name: 'upload-pack' }, { name: 'receive-pack' }, { name: 'exec' }, { name: 'ext-diff' }, { name: 'textconv', min: 5 }],
};

/**
 * Forms that run a program only for one subcommand: `-x` is harmless for
 * `cherry-pick` but runs a command for `rebase` and `difftool`; `-c` counts
 * matches for `grep` but writes configuration for `clone`.
 */
const GIT_SUBCOMMANDS: ReadonlyMap<string, GitRule> = new Map<string, GitRule>([
  ['difftool', { form: 'git difftool -x/--extcmd', long: [{ name: 'extcmd' }], short: 'x', valued: 'tx' }],
  ['grep', { form: 'git grep -O/--open-files-in-pager', long: [{ name: 'open-files-in-pager' }], short: 'O', valued: 'ABCefmO' }],
  ['rebase', { form: 'git rebase -x/--exec', short: 'x', valued: 'CrSsXx' }],
  ['bisect', { form: 'git bisect run', actions: new Set(['run']) }],
  ['submodule', { form: 'git submodule foreach', actions: new Set(['foreach']) }],
  [
    'clone',
    {
      form: 'git clone -c/--config/--template/-u/--upload-pack',
      long: [{ name: 'config' }, { name: 'template' }, { name: 'upload-pack' }],
      short: 'cu',
      valued: 'bcjou',
    },
  ],
  ['init', { form: 'git init --template', long: [{ name: 'template' }], valued: 'b' }],
  ['config', { form: 'git config writing the global, system or a named file', check: writesOutsideRepository }],
  ['maintenance', { form: 'git maintenance start/register', actions: new Set(['start', 'register']) }],
  [
    'filter-branch',
    {
      form: 'git filter-branch --*-filter/--setup',
      long: ['tree-filter', 'index-filter', 'env-filter', 'msg-filter', 'commit-filter', 'tag-name-filter', 'parent-filter', 'setup'].map((name) => ({ name, min: name.length })),
    },
  ],
  ['daemon', { form: 'git daemon --access-hook', long: [{ name: 'access-hook' }] }],
  ['for-each-repo', { form: 'git for-each-repo', always: true }],
  ['instaweb', { form: 'git instaweb', always: true }],
]);

// git's internal helpers (`submodule--helper foreach`, `bisect--helper --bisect-run`) and remote helpers (`remote-ext`) are never needed directly.
const GIT_INTERNAL: GitRule = { form: 'git internal or remote helper', always: true };

export function findDangerousArgument(argv: readonly string[]): DangerousArgument | undefined {
  const program = basename(argv[0] ?? '');
  switch (program) {
    case 'git':
      return checkGit(argv);
    case 'find':
      return argv.slice(1).some((arg) => FIND_FORMS.has(arg)) ? { program, form: 'find -exec/-ok/-delete/-fprint' } : undefined;
    case 'rg':
      return argv.slice(1).some((arg) => /^--pre(=|$)/.test(arg)) ? { program, form: 'rg --pre' } : undefined;
    case 'sed':
    case 'gsed': {
      const form = sedDanger(argv.slice(1));
      return form === undefined ? undefined : { program, form };
    }
    default:
      return undefined;
  }
}

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

function checkGit(argv: readonly string[]): DangerousArgument | undefined {
  const subcommand = gitSubcommandIndex(argv);
  for (let index = 1; index < subcommand; index += 1) {
    const arg = argv[index] as string;
    if (GIT_GLOBAL.some((form) => form.test(arg))) return { program: 'git', form: 'git -c/--config-env/--exec-path/-p/--paginate' };
  }
  const args = argv.slice(subcommand + 1);
  // `-u` names upload-pack for clone; elsewhere it is refused alone, as it always was.
  if (matchesRule(args, GIT_ANYWHERE) || args.slice(0, endOfOptions(args)).includes('-u')) return { program: 'git', form: GIT_ANYWHERE.form };
  const name = argv[subcommand];
  if (name === undefined) return undefined;
  const rule = name.includes('--') || name.startsWith('remote-') ? GIT_INTERNAL : GIT_SUBCOMMANDS.get(name);
  return rule !== undefined && matchesRule(args, rule) ? { program: 'git', form: rule.form } : undefined;
}

function endOfOptions(args: readonly string[]): number {
  const end = args.indexOf('--');
  return end === -1 ? args.length : end;
}

/** Whether a subcommand's arguments (after its name, up to `--`) hold a form the rule refuses. */
function matchesRule(args: readonly string[], rule: GitRule): boolean {
  if (rule.always === true) return true;
  if (rule.check?.(args) === true) return true;
  let positional = 0;
  for (const arg of args.slice(0, endOfOptions(args))) {
    if (arg.startsWith('--')) {
      if (rule.long !== undefined && matchesGitLongOption(arg, rule.long)) return true;
    } else if (arg.length > 1 && arg.startsWith('-')) {
      if (rule.short !== undefined && clusterHolds(arg, rule.short, rule.valued ?? '')) return true;
    } else {
      if (positional === 0 && rule.actions?.has(arg) === true) return true;
      positional += 1;
    }
  }
  return false;
}

/** `--name` or `--name=value` where name is the option or a prefix of it at least `min` long. */
export function matchesGitLongOption(arg: string, forms: readonly LongForm[]): boolean {
  if (!arg.startsWith('--')) return false;
  const equals = arg.indexOf('=');
  const name = arg.slice(2, equals === -1 ? undefined : equals);
  return forms.some((form) => name.length >= (form.min ?? 1) && form.name.startsWith(name));
}

/** Whether a short-option cluster (`-yx`, `-nOcmd`) holds one of `letters` before a value starts. */
function clusterHolds(arg: string, letters: string, valued: string): boolean {
  for (const letter of arg.slice(1)) {
    if (letters.includes(letter)) return true;
    if (valued.includes(letter)) return false;
  }
  return false;
}

/**
 * `git config` writing configuration outside this repository: the user's
 * global or the system file, or any named file (`~/.gitconfig`, another
 * repository's config). Those scopes are not the repository's own, so the
 * host leaves the drivers and aliases they name in place. Reading them
 * (`--get`, `--list`, a single name) stays allowed. The check is broad:
 * two or more plain arguments count as a write, whatever options take values.
 */
function writesOutsideRepository(args: readonly string[]): boolean {
  const scopes: readonly LongForm[] = [{ name: 'global', min: 2 }, { name: 'system', min: 2 }, { name: 'file' }];
  const writes: readonly LongForm[] = ['add', 'replace-all', 'unset', 'unset-all', 'rename-section', 'remove-section', 'edit'].map((name) => ({ name }));
  let outside = false;
  let write = false;
  const positionals: string[] = [];
  for (const arg of args.slice(0, endOfOptions(args))) {
    if (arg.startsWith('--')) {
      outside ||= matchesGitLongOption(arg, scopes);
      write ||= matchesGitLongOption(arg, writes);
    } else if (arg.length > 1 && arg.startsWith('-')) {
      outside ||= clusterHolds(arg, 'f', 't');
      write ||= clusterHolds(arg, 'e', 'ft');
    } else {
      positionals.push(arg);
    }
  }
  const verb = positionals[0];
  if (verb === 'get' || verb === 'list') return false;
  write ||= verb === 'set' || verb === 'unset' || verb === 'rename-section' || verb === 'remove-section' || verb === 'edit' || positionals.length >= 2;
  return outside && write;
}

function basename(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? '';
}
