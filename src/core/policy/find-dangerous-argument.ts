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
const GIT_ANYWHERE = [/^--output(=|$)/, /^--upload-pack(=|$)/, /^--receive-pack(=|$)/, /^--exec(=|$)/, /^-u$/, /^--ext-diff$/, /^--textconv$/];
// Git global options that take a separate value, so the subcommand comes later.
export const GIT_VALUE_OPTIONS: ReadonlySet<string> = new Set(['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--list-cmds', '--attr-source']);
const FIND_FORMS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

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
 * options, including the separate value of `-C`, `--git-dir` and the like.
 * `argv.length` when there is none.
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
  for (let index = subcommand; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg === '--') break;
    if (GIT_ANYWHERE.some((form) => form.test(arg))) return { program: 'git', form: 'git --output/--upload-pack/--exec' };
  }
  return undefined;
}

/**
 * sed executes with the `e` command or the `e` flag of `s`, and writes with
 * `w`/`W`, `-i` or a script read from a file we cannot inspect. The check is
 * deliberately broad: any script token that could be one of these refuses.
 */
function checkSed(program: string, argv: readonly string[]): DangerousArgument | undefined {
  const scripts: string[] = [];
  let sawScript = false;
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (/^(-i|--in-place)/.test(arg) || /^-[a-zA-Z]*i/.test(arg) || /^(-f|--file)/.test(arg) || /^-[a-zA-Z]*f/.test(arg)) {
      return { program, form: 'sed -i/-f' };
    }
    if (arg === '-e' || arg === '--expression') {
      scripts.push(argv[index + 1] ?? '');
      sawScript = true;
      index += 1;
    } else if (arg.startsWith('--expression=')) {
      scripts.push(arg.slice('--expression='.length));
      sawScript = true;
    } else if (/^-e./.test(arg)) {
      scripts.push(arg.slice(2));
      sawScript = true;
    } else if (!arg.startsWith('-') && !sawScript) {
      scripts.push(arg);
      sawScript = true;
    }
  }
  return scripts.some(isExecutingSedScript) ? { program, form: 'sed e/w command' } : undefined;
}

function isExecutingSedScript(script: string): boolean {
  // A command letter e/w/W at a command position (start, after ; or newline or {, after an address).
  if (/(^|[;\n{}])\s*(?:[0-9$]+(?:,[0-9$]+)?|\/(?:[^/\\]|\\.)*\/)?\s*!?\s*[eEwWrR]/.test(script)) return true;
  // An s command whose flags include e or w (any delimiter).
  for (const match of script.matchAll(/s([^\w\s\\])/g)) {
    const delimiter = match[1] as string;
    const parts = splitOnDelimiter(script.slice((match.index ?? 0) + 2), delimiter);
    if (parts !== undefined && /^[gpiImM0-9]*[ewEW]/.test(parts)) return true;
  }
  return false;
}

/** The flags after `pattern<d>replacement<d>`, or undefined when unterminated. */
function splitOnDelimiter(rest: string, delimiter: string): string | undefined {
  let seen = 0;
  for (let index = 0; index < rest.length; index += 1) {
    const char = rest[index];
    if (char === '\\') {
      index += 1;
    } else if (char === delimiter) {
      seen += 1;
      if (seen === 2) return rest.slice(index + 1);
    }
  }
  return undefined;
}

function basename(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] ?? '';
}
