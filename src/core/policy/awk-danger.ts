import { readAwkProgram } from './awk-program-reader.js';
import { readGetopt, withArity, type GetoptGrammar } from './read-getopt.js';

/**
 * awk runs commands with `system()`, through pipes (`print | "cmd"`,
 * `"cmd" | getline`, gawk's `|&`), writes files with `print > file` and
 * `>>`, reads files and network connections with `getline <`, and loads
 * code with gawk's `@load`/`@include`, indirect calls (`@f()`), `-f`,
 * `-E`, `-i` and `-l`. Options are read as gawk's getopt_long reads them
 * (options end at the program text); the program text is read with awk's
 * lexical rules, just far enough to tell code from string and regular
 * expression literals, so `/a|b/` and `"x > y"` stay allowed. What cannot
 * be read with confidence is refused. Returns the refused form (a fixed
 * description, never the program), or undefined.
 */
export function awkDanger(args: readonly string[]): string | undefined {
  const items = readGetopt(args, AWK_GRAMMAR);
  if (items === undefined) return 'awk option that cannot be checked';
  const sources: string[] = [];
  const operands: string[] = [];
  for (const item of items) {
    if ('operand' in item) operands.push(item.operand);
    else if (AWK_REFUSED_OPTIONS.has(item.option)) return 'awk -f/-E/-i/-l/-W or a file option (a program or extension that cannot be checked)';
    else if (item.option === 'e' || item.option === 'source') sources.push(item.value ?? '');
  }
  // With -e/--source the operands are all input files; otherwise the first is the program.
  const program = sources.length > 0 ? sources.join('\n') : operands.shift();
  if (operands.some((operand) => /^\/inet[46]?\//.test(operand))) return 'awk network special file';
  if (program === undefined) return undefined;
  const verdict = readAwkProgram(program);
  if (verdict === 'unreadable') return 'awk program that cannot be read';
  return verdict === 'dangerous' ? 'awk system()/pipe/redirection/getline </@' : undefined;
}

// gawk's own getopt_long grammar (its option list, `+F:f:v:W;bcCd::D::e:E:ghi:kl:L::nNo::Op::MPrSstVYZ:` and -I), options ending at the program.
const AWK_GRAMMAR: GetoptGrammar = {
  short: { ...withArity('bcCghIkMnNOPrsStVY', 'none'), ...withArity('FfvWeEilZ', 'required'), ...withArity('dDLop', 'optional') },
  long: {
    ...withArity(['assign', 'exec', 'field-separator', 'file', 'include', 'load', 'source'], 'required'),
    ...withArity(['debug', 'dump-variables', 'lint', 'persist', 'pretty-print', 'profile'], 'optional'),
    ...withArity(
      ['bignum', 'characters-as-bytes', 'copyright', 'csv', 'gen-pot', 'help', 'no-optimize', 'non-decimal-data', 'optimize', 'posix', 're-interval', 'sandbox', 'trace', 'traditional', 'use-lc-numeric', 'version'],
      'none',
    ),
  },
  stopAtOperand: true,
};

// A program or extension read from a file, a file written (dump, profile, pretty-print, persistent memory), gawk's -W and -Z.
const AWK_REFUSED_OPTIONS: ReadonlySet<string> = new Set([
  'f',
  'file',
  'E',
  'exec',
  'i',
  'include',
  'l',
  'load',
  'd',
  'dump-variables',
  'D',
  'debug',
  'o',
  'pretty-print',
  'p',
  'profile',
  'persist',
  'W',
  'Z',
]);
