/** Whether an option takes no value, a value (attached or the next argument), or only an attached one (`-d[file]`, `--lint[=v]`). */
export type OptionArity = 'none' | 'required' | 'optional';

/** A program's options, as its getopt_long call declares them. */
export interface GetoptGrammar {
  /** Short options by letter. */
  readonly short: Readonly<Record<string, OptionArity>>;
  /** Long options by full name; any unambiguous prefix names one. */
  readonly long: Readonly<Record<string, OptionArity>>;
  /**
   * getopt's leading `+` (exec wrappers, awk): options end at the first
   * operand, which with all that follows is the command. Without it, GNU
   * getopt's order: options and operands mix, as for sed.
   */
  readonly stopAtOperand?: boolean;
}

/** An option by its letter or full long name, with its value; or an operand. */
export type GetoptItem = { readonly option: string; readonly value?: string } | { readonly operand: string };

/**
 * The arguments read as GNU getopt_long reads them: short clusters
 * (`-nEe script`), values attached or separate, `--name=value`, abbreviated
 * long names, `--` ending the options. Undefined when getopt would not read
 * them the way this grammar says (an unknown or ambiguous option, a missing
 * or unexpected value): the caller refuses what it cannot read.
 */
export function readGetopt(args: readonly string[], grammar: GetoptGrammar): readonly GetoptItem[] | undefined {
  const items: GetoptItem[] = [];
  const operands = (from: number): void => {
    for (const operand of args.slice(from)) items.push({ operand });
  };
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '--') {
      operands(index + 1);
      return items;
    }
    if (arg.length < 2 || !arg.startsWith('-')) {
      if (grammar.stopAtOperand === true) {
        operands(index);
        return items;
      }
      items.push({ operand: arg });
      continue;
    }
    const next = (): string | undefined => {
      index += 1;
      return args[index];
    };
    const read = arg.startsWith('--') ? readLong(arg, grammar, next) : readCluster(arg, grammar, next);
    if (read === undefined) return undefined;
    items.push(...read);
  }
  return items;
}

function readLong(arg: string, grammar: GetoptGrammar, next: () => string | undefined): GetoptItem[] | undefined {
  const equals = arg.indexOf('=');
  const name = arg.slice(2, equals === -1 ? undefined : equals);
  const names = Object.keys(grammar.long);
  const option = names.includes(name) ? name : onlyOne(names.filter((candidate) => candidate.startsWith(name)));
  if (option === undefined) return undefined;
  const arity = grammar.long[option];
  if (equals !== -1) return arity === 'none' ? undefined : [{ option, value: arg.slice(equals + 1) }];
  if (arity !== 'required') return [{ option }];
  const value = next();
  return value === undefined ? undefined : [{ option, value }];
}

function readCluster(arg: string, grammar: GetoptGrammar, next: () => string | undefined): GetoptItem[] | undefined {
  const items: GetoptItem[] = [];
  for (let at = 1; at < arg.length; at += 1) {
    const option = arg[at] as string;
    const arity = Object.hasOwn(grammar.short, option) ? grammar.short[option] : undefined;
    if (arity === undefined) return undefined;
    if (arity === 'none') {
      items.push({ option });
      continue;
    }
    const attached = arg.slice(at + 1);
    const value = attached !== '' || arity === 'optional' ? attached : next();
    if (value === undefined) return undefined;
    items.push(value === '' && arity === 'optional' ? { option } : { option, value });
    return items;
  }
  return items;
}

function onlyOne(candidates: readonly string[]): string | undefined {
  return candidates.length === 1 ? candidates[0] : undefined;
}

/** One arity for each option: the letters of a string, or a list of long names. */
export function withArity(options: string | readonly string[], arity: OptionArity): Record<string, OptionArity> {
  return Object.fromEntries([...options].map((option) => [option, arity]));
}
