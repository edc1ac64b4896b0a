import { findDangerousArgument } from './find-dangerous-argument.js';
import { matchArgvPattern } from './match-argv-pattern.js';

export interface CommandAllowlist {
  /** Exact argvs. */
  readonly commands: readonly (readonly string[])[];
  /** Opt-in element patterns (see `matchArgvPattern`). */
  readonly globs: readonly (readonly string[])[];
}

export type CommandCheck =
  | { readonly ok: true; readonly via: 'exact' | 'glob' }
  | { readonly ok: false; readonly detail: string };

const refuse = (detail: string): CommandCheck => ({ ok: false, detail });

/**
 * The command floor. Exact entries compare element for element, byte for
 * byte; globs are opt-in and never admit a path-qualified argv[0], an
 * env-assignment prefix or a control character. Dangerous argument forms
 * are refused whichever way the command was admitted.
 */
export function checkCommand(argv: readonly string[], allowlist: CommandAllowlist): CommandCheck {
  if (argv.length === 0) return refuse('was refused: the command is empty');
  if (argv.some((arg) => typeof arg !== 'string' || arg.includes('\0'))) return refuse('was refused: the command holds a NUL byte');
  const exact = allowlist.commands.some((entry) => entry.length === argv.length && entry.every((element, index) => element === argv[index]));
  let via: 'exact' | 'glob' | undefined = exact ? 'exact' : undefined;
  if (via === undefined && allowlist.globs.length > 0) {
    const program = argv[0] as string;
    // A glob names programs by bare name; a path or `VAR=value` in argv[0] needs an exact entry.
    if (/[\\/]/.test(program)) return refuse('was refused: a path-qualified program needs an exact allowed command');
    if (program.includes('=')) return refuse('was refused: an environment assignment is not a program');
    // eslint-disable-next-line no-control-regex -- refusing control characters is the point
    if (argv.some((arg) => /[\u0000-\u001f\u007f]/.test(arg))) return refuse('was refused: the command holds a control character');
    if (allowlist.globs.some((glob) => matchArgvPattern(glob, argv))) via = 'glob';
  }
  if (via === undefined) return refuse('was refused: the command is not in the allowed commands');
  const dangerous = findDangerousArgument(argv);
  if (dangerous !== undefined) return refuse(`was refused: the argument form ${dangerous.form} can execute or write`);
  return { ok: true, via };
}
