/**
 * How a runner's options are read for the files it runs its code from
 * (`runnerCode`). Two grammars: the spellings a getopt-style program takes
 * (make, yarn, bun: `-C dir`, `-Cdir`, `--directory=dir`), and the looser
 * one npm and pnpm take from their parser, nopt. nopt strips any number of
 * leading dashes (`-prefix`, `---prefix`), takes a long option by a prefix
 * of its name when no other option shares it (`--prefi`), a short one after
 * two dashes (`--C`) or at the end of a cluster of short ones (`-sC dir`),
 * and stops at any run of dashes alone (`---`). Which prefix is unique is
 * the program's own list of options to say, which changes with its version:
 * a spelling npm may or may not read as an option is read both ways (`sure`
 * false), so the files of each reading are bound.
 */

/** One value an option gives, and whether the program surely reads that option so. */
export interface OptionValue {
  readonly value: string;
  /** The option is spelled whole (`--prefix`, `-C`): the program reads it; a later one of the same name overrides it. */
  readonly sure: boolean;
}

/** How a runner reads its options: `getopt` as spelled, `nopt` as npm's parser does. */
export type OptionGrammar = 'getopt' | 'nopt';

/**
 * The values options give, in order (`-C dir`, `-Cdir`, `--directory=dir`),
 * read in the runner's grammar; a value no path can name (a NUL) is left out.
 * `whole` are other options of the runner, which nopt reads whole before any
 * cluster (npm's `-ws` is every workspace, never `-w s`).
 */
export function runnerOptionValues(command: readonly string[], options: readonly string[], grammar: OptionGrammar, whole: readonly string[] = []): OptionValue[] {
  if (options.length === 0) return [];
  return grammar === 'nopt' ? noptValues(command, options, whole) : spelledValues(command, options);
}

/** Whether any of `options` is given at all, in any spelling the grammar may read as it (`--workspaces`, `-ws`, `--filter=x`). */
export function givesOption(command: readonly string[], options: readonly string[], grammar: OptionGrammar): boolean {
  for (let index = 1; index < command.length; index += 1) {
    const arg = command[index] as string;
    if (ends(arg, grammar)) return false;
    if (grammar === 'nopt' ? noptReading(arg, options) !== undefined : spelledOption(arg, options) !== undefined) return true;
  }
  return false;
}

/** The end of options: `--`, and for nopt any run of dashes alone. */
function ends(arg: string, grammar: OptionGrammar): boolean {
  return grammar === 'nopt' ? /^-{2,}$/.test(arg) : arg === '--';
}

/** Each option read only as spelled in `options` (not `optionValues`' clusters and abbreviations, which the exec-form table refuses by). */
function spelledValues(command: readonly string[], options: readonly string[]): OptionValue[] {
  const values: OptionValue[] = [];
  for (let index = 1; index < command.length; index += 1) {
    const arg = command[index] as string;
    if (ends(arg, 'getopt')) break;
    const option = spelledOption(arg, options);
    if (option === undefined) continue;
    const value = arg === option ? command[(index += 1)] : arg.slice(arg.charAt(option.length) === '=' ? option.length + 1 : option.length);
    push(values, value, true);
  }
  return values;
}

function spelledOption(arg: string, options: readonly string[]): string | undefined {
  return options.find((name) => arg === name || arg.startsWith(`${name}=`) || (!name.startsWith('--') && arg.startsWith(name) && arg.length > name.length));
}

/** How nopt may read one argument as one of `options`: `sure`, `maybe` (an abbreviation, a cluster), or not at all. */
interface NoptReading {
  readonly sure: boolean;
  /** The value after its `=`, when it has one. */
  readonly joined: string | undefined;
  /** The value written against a short option (`-Cdir`), which nopt does not read but a getopt program would. */
  readonly attached: string | undefined;
}

function noptValues(command: readonly string[], options: readonly string[], whole: readonly string[]): OptionValue[] {
  const values: OptionValue[] = [];
  for (let index = 1; index < command.length; index += 1) {
    const arg = command[index] as string;
    if (ends(arg, 'nopt')) break;
    const reading = noptReading(arg, options);
    if (reading === undefined || (!reading.sure && whole.some((option) => bare(option) === keyOf(arg)))) continue;
    if (reading.attached !== undefined) push(values, reading.attached, false);
    // nopt takes the next argument as the value, whatever it looks like (`--prefix -s` is the folder `-s`);
    // a reading that may not be the option leaves it to be read in turn.
    const value = reading.joined ?? (reading.sure ? command[(index += 1)] : command[index + 1]);
    // An empty value, or none at the end, is an empty folder, which npm reads as the one it runs in, with no climb:
    // it overrides an earlier one (`--prefix app --prefix=` runs the package.json of the working directory).
    push(values, reading.sure && (value === undefined || value === '') ? '.' : value, reading.sure);
  }
  return values;
}

function noptReading(arg: string, options: readonly string[]): NoptReading | undefined {
  if (arg.length < 2 || !arg.startsWith('-')) return undefined;
  const at = arg.indexOf('=');
  const key = keyOf(arg);
  const joined = at < 0 ? undefined : arg.slice(at + 1);
  if (key === '') return undefined;
  let maybe: NoptReading | undefined;
  for (const option of options) {
    const name = bare(option);
    if (key === name) return { sure: true, joined, attached: undefined };
    if (name.length > 1 ? name.startsWith(key) : /^[A-Za-z]+$/.test(key) && key.includes(name)) {
      // A cluster whose first letter is the option may be a getopt spelling of its value (`-Cdir`): read that too.
      const attached = name.length === 1 && at < 0 && key.startsWith(name) ? key.slice(1) : undefined;
      maybe = { sure: false, joined, attached };
    }
  }
  return maybe;
}

/** The option's name as nopt looks it up: without its leading dashes and its `=value`. */
function keyOf(arg: string): string {
  const at = arg.indexOf('=');
  return bare(at < 0 ? arg : arg.slice(0, at));
}

function bare(option: string): string {
  return option.replace(/^-+/, '');
}

function push(values: OptionValue[], value: string | undefined, sure: boolean): void {
  // A value no path can name (a NUL) is left out, as an argument holding one is.
  if (value !== undefined && value !== '' && !value.includes('\0')) values.push({ value, sure });
}
