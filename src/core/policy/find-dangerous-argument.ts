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
    case 'gsed':
      return checkSed(program, argv);
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

/**
 * sed executes with the `e` command or the `e` flag of `s`, reads files with
 * `r`/`R` and writes with `w`/`W`, the `w` flag of `s`, `-i`, or a script read
 * from a file we cannot inspect. Options are read as GNU getopt reads them
 * (short clusters, any unambiguous prefix of a long option) and every script
 * is parsed with sed's grammar to find each command. Whatever cannot be read
 * this way is refused (fail closed).
 */
function checkSed(program: string, argv: readonly string[]): DangerousArgument | undefined {
  const options = readSedOptions(argv.slice(1));
  if (options === 'in-place-or-file') return { program, form: 'sed -i/-f' };
  if (options === 'unreadable') return { program, form: 'sed option that cannot be checked' };
  return options.some((script) => !isSafeSedScript(script)) ? { program, form: 'sed e/w/r command' } : undefined;
}

type SedLongArg = 'none' | 'required' | 'optional';
interface SedLongOption {
  readonly arg: SedLongArg;
  readonly refused?: boolean;
}
const SED_LONG_OPTIONS: ReadonlyMap<string, SedLongOption> = new Map<string, SedLongOption>([
  ['expression', { arg: 'required' }],
  ['file', { arg: 'required', refused: true }],
  ['in-place', { arg: 'optional', refused: true }],
  ['line-length', { arg: 'required' }],
  ...['null-data', 'zero-terminated', 'separate', 'sandbox', 'debug', 'posix', 'quiet', 'silent', 'regexp-extended', 'unbuffered', 'follow-symlinks', 'binary', 'help', 'version'].map(
    (name): [string, SedLongOption] => [name, { arg: 'none' }],
  ),
]);
const SED_SHORT_FLAGS = 'bnrsuzE';

/**
 * The scripts sed would run: the `-e`/`--expression` values joined by
 * newlines (as sed joins them), or else the first non-option argument. A
 * non-option argument before the first `-e` is checked too, since with
 * POSIXLY_CORRECT getopt stops there and takes it as the script.
 */
function readSedOptions(args: readonly string[]): readonly string[] | 'in-place-or-file' | 'unreadable' {
  const expressions: string[] = [];
  const positionals: string[] = [];
  let positionalBeforeExpression: string | undefined;
  const addExpression = (value: string): void => {
    if (expressions.length === 0 && positionals.length > 0) positionalBeforeExpression = positionals[0];
    expressions.push(value);
  };
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '--') {
      positionals.push(...args.slice(index + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      const name = arg.slice(2, equals === -1 ? undefined : equals);
      const candidates = [...SED_LONG_OPTIONS.keys()].filter((option) => option === name || option.startsWith(name));
      const exact = candidates.includes(name) ? [name] : candidates;
      if (exact.some((option) => SED_LONG_OPTIONS.get(option)?.refused === true)) return 'in-place-or-file';
      if (exact.length !== 1) return 'unreadable';
      const option = exact[0] as string;
      const arity = SED_LONG_OPTIONS.get(option)?.arg;
      let value: string | undefined;
      if (equals !== -1) {
        if (arity === 'none') return 'unreadable';
        value = arg.slice(equals + 1);
      } else if (arity === 'required') {
        index += 1;
        value = args[index];
        if (value === undefined) return 'unreadable';
      }
      if (option === 'expression') addExpression(value as string);
      if (option === 'line-length' && !/^[0-9]+$/.test(value as string)) return 'unreadable';
      continue;
    }
    if (arg.length < 2 || !arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    for (let at = 1; at < arg.length; at += 1) {
      const letter = arg[at] as string;
      if (letter === 'i' || letter === 'f') return 'in-place-or-file';
      if (SED_SHORT_FLAGS.includes(letter)) continue;
      if (letter !== 'e' && letter !== 'l') return 'unreadable';
      let value: string | undefined = arg.slice(at + 1);
      if (value === '') {
        index += 1;
        value = args[index];
        if (value === undefined) return 'unreadable';
      }
      if (letter === 'e') addExpression(value);
      else if (!/^[0-9]+$/.test(value)) return 'unreadable';
      break;
    }
  }
  if (expressions.length === 0) return positionals.length === 0 ? [] : [positionals[0] as string];
  const joined = expressions.join('\n');
  return positionalBeforeExpression === undefined ? [joined] : [joined, positionalBeforeExpression];
}

class SedScriptError extends Error {}

/** Whether a sed script parses and holds no command or flag that executes, reads or writes a file. */
export function isSafeSedScript(script: string): boolean {
  try {
    return new SedScriptReader(script).safe();
  } catch (error) {
    if (error instanceof SedScriptError) return false;
    throw error;
  }
}

// Commands that end where they stand (sed's read_end_of_cmd). `F` only prints the file name.
const SED_PLAIN_COMMANDS = '=dDgGhHnNpPxzF';
const SED_REFUSED_COMMANDS = 'ewWrR';
const SED_SUBSTITUTE_FLAGS = 'gpiImM0123456789';

/** A reader of GNU sed's script grammar (compile.c), just enough to see every command. */
class SedScriptReader {
  private at = 0;

  constructor(private readonly text: string) {}

  safe(): boolean {
    let depth = 0;
    for (;;) {
      this.skip((char) => /\s/.test(char) || char === ';');
      const first = this.next();
      if (first === undefined) return depth === 0;
      if (first === '#') {
        while (this.peek() !== undefined && this.peek() !== '\n') this.at += 1;
        continue;
      }
      const addressed = this.address(first);
      let command = addressed ? this.nonBlank() : first;
      if (addressed && command === ',') {
        if (!this.address(this.nonBlank())) this.fail();
        command = this.nonBlank();
      }
      if (command === '!') {
        command = this.nonBlank();
        if (command === '!') this.fail();
      }
      if (command === undefined) this.fail();
      if (SED_REFUSED_COMMANDS.includes(command)) return false;
      switch (command) {
        case '{':
          depth += 1;
          break;
        case '}':
          depth -= 1;
          if (depth < 0) this.fail();
          this.endOfCommand();
          break;
        case 'a':
        case 'i':
        case 'c':
          this.text_();
          break;
        case ':':
          if (addressed || this.label() === '' || this.peek() === '}') this.fail();
          break;
        case 'b':
        case 't':
        case 'T':
        case 'v':
          this.label();
          break;
        case 'q':
        case 'Q':
        case 'l':
          this.skipBlanks();
          this.digits();
          this.endOfCommand();
          break;
        case 's':
          if (!this.substitute()) return false;
          break;
        case 'y': {
          const delimiter = this.delimiter();
          this.delimited(delimiter, false);
          this.delimited(delimiter, false);
          this.endOfCommand();
          break;
        }
        default:
          if (!SED_PLAIN_COMMANDS.includes(command)) this.fail();
          this.endOfCommand();
      }
    }
  }

  /** An address starting with `first` (consumed); false when `first` starts none. */
  private address(first: string | undefined): boolean {
    if (first === undefined) return false;
    if (first === '/' || first === '\\') {
      this.delimited(first === '\\' ? this.delimiter() : '/', true);
      for (;;) {
        const save = this.at;
        const flag = this.nonBlank();
        if (flag !== 'I' && flag !== 'M') {
          this.at = save;
          return true;
        }
      }
    }
    if (/[0-9]/.test(first)) {
      this.digits();
      const save = this.at;
      if (this.nonBlank() === '~') {
        this.skipBlanks();
        this.digits();
      } else {
        this.at = save;
      }
      return true;
    }
    if (first === '+' || first === '~') {
      this.skipBlanks();
      this.digits();
      return true;
    }
    return first === '$';
  }

  /** `s`: pattern, replacement and flags. False when a flag executes or writes. */
  private substitute(): boolean {
    const delimiter = this.delimiter();
    this.delimited(delimiter, true);
    this.delimited(delimiter, false);
    for (;;) {
      const flag = this.next();
      if (flag === undefined || flag === '\n' || flag === ';') return true;
      if (flag === '}' || flag === '#') {
        this.at -= 1;
        return true;
      }
      if (flag === 'e' || flag === 'w') return false;
      if (flag !== ' ' && flag !== '\t' && !SED_SUBSTITUTE_FLAGS.includes(flag)) this.fail();
    }
  }

  /** The delimiter of `s`, `y` or `\cREc`: one ASCII character other than backslash and newline. */
  private delimiter(): string {
    const delimiter = this.next();
    if (delimiter === undefined || delimiter === '\\' || delimiter === '\n' || delimiter.charCodeAt(0) > 0x7e) this.fail();
    return delimiter;
  }

  /**
   * Up to and past the closing delimiter (sed's match_slash). A backslash
   * escapes the next character; a newline or the end is unterminated. In a
   * regular expression a bracket expression may hold the delimiter; to stay
   * on the safe side, one that holds it, a backslash or a newline is refused.
   */
  private delimited(delimiter: string, regex: boolean): void {
    for (;;) {
      const char = this.next();
      if (char === undefined || char === '\n') this.fail();
      if (char === delimiter) return;
      if (char === '\\') {
        if (this.next() === undefined) this.fail();
      } else if (char === '[' && regex) {
        this.bracket(delimiter);
      }
    }
  }

  /** A bracket expression after its `[`: `[]…]`, `[^]…]`, `[:class:]`, `[.x.]`, `[=x=]`. */
  private bracket(delimiter: string): void {
    if (this.peek() === '^') this.at += 1;
    if (this.peek() === ']') this.at += 1;
    for (;;) {
      const char = this.next();
      if (char === undefined || char === '\n' || char === '\\' || char === delimiter) this.fail();
      if (char === ']') return;
      const kind = this.peek();
      if (char === '[' && (kind === ':' || kind === '.' || kind === '=')) {
        const close = this.text.indexOf(`${kind}]`, this.at + 1);
        if (close === -1) this.fail();
        const inner = this.text.slice(this.at + 1, close);
        if (inner.includes('\n') || inner.includes('\\') || inner.includes(delimiter)) this.fail();
        this.at = close + 2;
      }
    }
  }

  /** The text of `a`, `i`, `c`: to the first unescaped newline (sed's read_text). */
  private text_(): void {
    this.skipBlanks();
    if (this.peek() === undefined) this.fail();
    // After a backslash the next character, a newline included, is taken as it is.
    if (this.peek() === '\\') this.at += 2;
    for (;;) {
      const char = this.next();
      if (char === undefined || char === '\n') return;
      if (char === '\\') this.at += 1;
    }
  }

  /** A label: after blanks, up to whitespace, `;` or `}` (sed's read_label). */
  private label(): string {
    this.skipBlanks();
    const start = this.at;
    this.skip((char) => !/\s/.test(char) && char !== ';' && char !== '}');
    return this.text.slice(start, this.at);
  }

  /** sed's read_end_of_cmd: blanks, then the end, a newline, `;`, or a `}`/`#` left for the next command. */
  private endOfCommand(): void {
    const char = this.nonBlank();
    if (char === '}' || char === '#') this.at -= 1;
    else if (char !== undefined && char !== '\n' && char !== ';') this.fail();
  }

  private digits(): void {
    this.skip((char) => /[0-9]/.test(char));
  }

  private skipBlanks(): void {
    this.skip((char) => char === ' ' || char === '\t');
  }

  private nonBlank(): string | undefined {
    this.skipBlanks();
    return this.next();
  }

  private skip(test: (char: string) => boolean): void {
    while (this.at < this.text.length && test(this.text[this.at] as string)) this.at += 1;
  }

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private next(): string | undefined {
    const char = this.text[this.at];
    if (char !== undefined) this.at += 1;
    return char;
  }

  private fail(): never {
    throw new SedScriptError('unreadable sed script');
  }
}

function basename(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? '';
}
