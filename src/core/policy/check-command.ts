import { unwrapCommand } from './exec-wrappers.js';
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

/** Wrappers inside wrappers beyond this are refused (`nice timeout 5 nohup …`). */
const MAX_WRAPPERS = 8;

/**
 * The command floor. Exact entries compare element for element, byte for
 * byte, and run exactly what they say. Globs are opt-in and never admit a
 * path-qualified argv[0], an env-assignment prefix or a control character;
 * under a glob, an exec wrapper's command (`timeout 5 cmd`, `env cmd`,
 * `xargs cmd`) must pass the floor on its own, and the exec-capable forms
 * (`findDangerousArgument`) are refused.
 */
export function checkCommand(argv: readonly string[], allowlist: CommandAllowlist): CommandCheck {
  return checkAt(argv, allowlist, 0);
}

function checkAt(argv: readonly string[], allowlist: CommandAllowlist, depth: number): CommandCheck {
  if (argv.length === 0) return refuse('was refused: the command is empty');
  if (argv.some((arg) => typeof arg !== 'string' || arg.includes('\0'))) return refuse('was refused: the command holds a NUL byte');
  if (allowlist.commands.some((entry) => entry.length === argv.length && entry.every((element, index) => element === argv[index]))) return { ok: true, via: 'exact' };
  if (allowlist.globs.length === 0) return refuse('was refused: the command is not in the allowed commands');
  const program = argv[0] as string;
  // A glob names programs by bare name; a path or `VAR=value` in argv[0] needs an exact entry.
  if (/[\\/]/.test(program)) return refuse('was refused: a path-qualified program needs an exact allowed command');
  if (program.includes('=')) return refuse('was refused: an environment assignment is not a program');
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (argv.some((arg) => /[\u0000-\u001f\u007f]/.test(arg))) return refuse('was refused: the command holds a control character');
  if (!allowlist.globs.some((glob) => matchArgvPattern(glob, argv))) return refuse('was refused: the command is not in the allowed commands');
  const unwrapped = unwrapCommand(argv);
  if (unwrapped?.kind === 'refused') return refuse(`was refused: the wrapper form ${unwrapped.form} is not allowed under a glob`);
  if (unwrapped?.kind === 'runs') {
    if (depth >= MAX_WRAPPERS) return refuse('was refused: the command nests too many wrappers');
    const inner = checkAt(unwrapped.argv, allowlist, depth + 1);
    if (!inner.ok) return refuse(`${inner.detail} (in the command ${unwrapped.wrapper} runs)`);
  }
  const dangerous = findDangerousArgument(argv);
  if (dangerous !== undefined) return refuse(`was refused: the argument form ${dangerous.form} can execute or write`);
  return { ok: true, via: 'glob' };
}
