import { commandReadings } from './command-readings.js';
import { EXEC_FORMS, RUNS_ONLY_REFUSED_FORMS } from './exec-forms.js';
import { isExecWrapper, unwrapCommand } from './exec-wrappers.js';
import { findDangerousArgument } from './find-dangerous-argument.js';
import { lookupProgram } from './lookup-program.js';
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
 * (`findDangerousArgument`) are refused, in the command and in every command
 * it may run (`checkReadings`).
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
  // A wrapper's command was judged above, where an exact entry for it stands as written; the innermost command's readings are judged here.
  return unwrapped?.kind === 'runs' ? { ok: true, via: 'glob' } : checkReadings(argv);
}

/** A program the floor can refuse a form of: one of the exec-form table or an exec wrapper. Only their commands are read. */
function judgedByTheFloor(program: string): boolean {
  return lookupProgram(EXEC_FORMS, program) !== undefined || isExecWrapper(program);
}

/**
 * A program toolgate does not know may run any of its arguments as a
 * command (`setarch x86_64 python3 -c …`, `prlimit sh -c …`, `fakeroot find
 * . -exec …`, `strace -f sh -c …`, `poetry run python -c …`, a shell string
 * handed to `capsh -- -c`), so under a glob every command a deny reads in
 * the argv (`commandReadings`) must pass what the argv's own command
 * passes: no exec-capable form, no wrapper form refused. Where the readings
 * are cut (a program only the shell works out, code handed over by input,
 * more readings than their bounds) nothing says what runs, and the floor
 * refuses rather than admit a command it did not read. Only commands of
 * a program it can refuse a form of are listed (`judgedByTheFloor`), so a
 * long argv of file names (`eslint` and 450 files) costs no bound. A program whose
 * arguments the exec-form table reads whole (`RUNS_ONLY_REFUSED_FORMS`: a
 * sed or awk script is no shell string) has nothing more to read.
 */
function checkReadings(argv: readonly string[]): CommandCheck {
  if (lookupProgram(RUNS_ONLY_REFUSED_FORMS, argv[0] as string) !== undefined) return { ok: true, via: 'glob' };
  const readings = commandReadings(argv, judgedByTheFloor);
  if (readings.cut) return refuse('was refused: it may run a command the floor cannot read (a program the shell works out, code read from input, or more commands than it reads)');
  for (const form of readings.forms) {
    const unwrapped = unwrapCommand(form);
    if (unwrapped?.kind === 'refused') return refuse(`was refused: the wrapper form ${unwrapped.form} is not allowed under a glob (in a command its arguments may run)`);
    const dangerous = findDangerousArgument(form);
    if (dangerous !== undefined) return refuse(`was refused: the argument form ${dangerous.form} can execute or write (in a command its arguments may run)`);
  }
  return { ok: true, via: 'glob' };
}
