/**
 * Finding a refused option in a command's arguments, read the way getopt
 * and git's parse-options read them, without knowing every option the
 * program has. Every argument up to `--` is looked at, a value given as a
 * separate argument included: a value that looks like a refused option is
 * refused too (fail closed), and no refused option can hide as a value.
 */

/**
 * A long option. getopt_long and git's parse-options accept any unambiguous
 * prefix (`--exe` for `--exec`, `--checkp` for `--checkpoint-action`), so
 * every prefix of at least `min` characters counts. `min` is above 1 only
 * where a shorter prefix is another option's full name (`--text` is not
 * `--textconv`, `--checkpoint` is not `--checkpoint-action`).
 */
export interface LongForm {
  readonly name: string;
  readonly min?: number;
  /** Every option whose name starts with `name` counts too (`--remote-send` for `remote`, `--inspect-brk` for `inspect`). */
  readonly family?: boolean;
}

/** What a program (or one of git's subcommands) refuses among its arguments. */
export interface OptionRule {
  /** A short, fixed description of the forms (never an argument's value). */
  readonly form: string;
  readonly long?: readonly LongForm[];
  /** Short options refused, alone or anywhere in a cluster (`-yx`, `-nOcmd`). */
  readonly short?: string;
  /**
   * Short options that take a value: in a cluster, whatever follows one is
   * that value, not more options. Only options known to take a value are
   * listed; a letter missing here is read as a flag, which can only refuse
   * more.
   */
  readonly valued?: string;
  /** Refused when the first non-option argument is one of these (`bisect run`, `submodule foreach`). */
  readonly actions?: ReadonlySet<string>;
  /** The program (or subcommand) is refused whatever its arguments. */
  readonly always?: boolean;
  /** A check no table expresses. */
  readonly check?: (args: readonly string[]) => boolean;
}

/** Where options end: at `--`, or the end. */
export function endOfOptions(args: readonly string[]): number {
  const end = args.indexOf('--');
  return end === -1 ? args.length : end;
}

/** Whether the arguments (after the program or subcommand name, up to `--`, and an action named right past it) hold a form the rule refuses. */
export function holdsForm(args: readonly string[], rule: OptionRule): boolean {
  if (rule.always === true) return true;
  if (rule.check?.(args) === true) return true;
  let positional = 0;
  for (const arg of args.slice(0, endOfOptions(args))) {
    if (arg.startsWith('--')) {
      if (rule.long !== undefined && matchesLongOption(arg, rule.long)) return true;
    } else if (arg.length > 1 && arg.startsWith('-')) {
      if (rule.short !== undefined && clusterHolds(arg, rule.short, rule.valued ?? '')) return true;
    } else {
      if (positional === 0 && rule.actions?.has(arg) === true) return true;
      positional += 1;
    }
  }
  // An action named only past a `--` (`git submodule -- foreach …`): git may still take it for the action.
  const end = endOfOptions(args);
  return positional === 0 && end < args.length && rule.actions?.has(args[end + 1] ?? '') === true;
}

/** `--name` or `--name=value` where name is one of the options, a prefix of it at least `min` long, or (for a family) any name it starts. */
export function matchesLongOption(arg: string, forms: readonly LongForm[]): boolean {
  if (!arg.startsWith('--')) return false;
  const equals = arg.indexOf('=');
  const name = arg.slice(2, equals === -1 ? undefined : equals);
  return forms.some((form) => (name.length >= (form.min ?? 1) && form.name.startsWith(name)) || (form.family === true && name.startsWith(form.name)));
}

/** Whether a short-option cluster (`-yx`, `-nOcmd`) holds one of `letters` before a value starts. */
export function clusterHolds(arg: string, letters: string, valued: string): boolean {
  for (const letter of arg.slice(1)) {
    if (letters.includes(letter)) return true;
    if (valued.includes(letter)) return false;
  }
  return false;
}

/**
 * Every value given to an option (up to `--`): short `letter` as `-oX`,
 * `-o X` and in a cluster `-vo X`, `-voX`; long ones as `--name=X` and
 * `--name X`, abbreviated too. `valued` are the program's short options
 * that take a value, so that `-io` is the value `o` of `-i`.
 */
export function optionValues(args: readonly string[], letter: string | undefined, long: readonly LongForm[], valued: string): string[] {
  const values: string[] = [];
  const end = endOfOptions(args);
  for (let index = 0; index < end; index += 1) {
    const arg = args[index] as string;
    const next = args[index + 1] ?? '';
    if (arg.startsWith('--')) {
      const equals = arg.indexOf('=');
      if (matchesLongOption(arg, long)) values.push(equals === -1 ? next : arg.slice(equals + 1));
      continue;
    }
    if (letter === undefined || arg.length < 2 || !arg.startsWith('-')) continue;
    for (let at = 1; at < arg.length; at += 1) {
      const char = arg[at] as string;
      if (char === letter) {
        values.push(at + 1 < arg.length ? arg.slice(at + 1) : next);
        break;
      }
      if (valued.includes(char)) break;
    }
  }
  return values;
}
