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

// After these keywords an expression may start, so `/` opens a regular expression.
const BEFORE_EXPRESSION = new Set(['print', 'printf', 'return', 'exit', 'case', 'do', 'else']);
// Keywords and built-in functions after which awks disagree about `/`, or it is no valid awk: refused (`length /x/` is a regex in mawk, division in gawk).
const UNSURE_AFTER = new Set([
  'BEGIN',
  'BEGINFILE',
  'END',
  'ENDFILE',
  'and',
  'asort',
  'asorti',
  'atan2',
  'bindtextdomain',
  'break',
  'close',
  'compl',
  'continue',
  'cos',
  'dcgettext',
  'dcngettext',
  'default',
  'delete',
  'exp',
  'fflush',
  'for',
  'func',
  'function',
  'gensub',
  'getline',
  'gsub',
  'if',
  'in',
  'index',
  'int',
  'isarray',
  'length',
  'log',
  'lshift',
  'match',
  'mkbool',
  'mktime',
  'next',
  'nextfile',
  'or',
  'patsplit',
  'rand',
  'rshift',
  'sin',
  'split',
  'sprintf',
  'sqrt',
  'srand',
  'strftime',
  'strtonum',
  'sub',
  'substr',
  'switch',
  'systime',
  'tolower',
  'toupper',
  'typeof',
  'while',
  'xor',
]);
// A `(` right after one of these opens a condition; after its `)` a statement, so a regular expression, may start.
const CONTROL = new Set(['if', 'while', 'for', 'switch']);

/** What a `/` means at this point: it opens a regular expression, it divides, or awks could read it either way. */
type Slash = 'regex' | 'divide' | 'unsure';

class AwkProgramError extends Error {}

/**
 * Whether an awk program holds a form that runs, writes or reads beyond
 * its input. Strings and regular expressions are skipped as awk's lexer
 * skips them; a `/` is taken as opening a regular expression only where no
 * operand precedes it (so awk cannot read it as division), and refused
 * where awks disagree. A `>` inside a `print`/`printf` statement outside
 * parentheses is a redirection (gawk and mawk count parentheses the same
 * way); any `|` other than `||` is a pipe; `getline` with any `<` is
 * refused, as are `system`, `@` and `#` comments (a comment could hide
 * code were a literal misread).
 */
function readAwkProgram(text: string): 'dangerous' | 'unreadable' | undefined {
  try {
    return new AwkProgramReader(text).dangerous() ? 'dangerous' : undefined;
  } catch (error) {
    if (error instanceof AwkProgramError) return 'unreadable';
    throw error;
  }
}

class AwkProgramReader {
  private at = 0;
  private slash: Slash = 'regex';
  /** Open parentheses; true where one opened a control statement's condition. */
  private readonly parens: boolean[] = [];
  /** The parenthesis depth of the `print`/`printf` statement being read. */
  private printDepth: number | undefined;
  /** Whether the last token ended an operand, so a newline after it ends the statement. */
  private operandEnded = false;
  private previousWord = '';
  private getline = false;
  private less = false;

  constructor(private readonly text: string) {}

  dangerous(): boolean {
    for (;;) {
      const char = this.text[this.at];
      if (char === undefined) return this.getline && this.less;
      this.at += 1;
      const word = this.previousWord;
      this.previousWord = '';
      if (/[A-Za-z_]/.test(char)) {
        if (this.word(char)) return true;
        continue;
      }
      if (/[0-9.]/.test(char)) {
        // Digits only: letters after them are a name of their own to awk (`1system(…)` calls system).
        while (/[0-9.]/.test(this.text[this.at] ?? '')) this.at += 1;
        this.operand();
        continue;
      }
      switch (char) {
        case ' ':
        case '\t':
          this.previousWord = word;
          break;
        case '\\':
          // A line continuation is blank space; a backslash anywhere else is no awk.
          if (this.text[this.at] !== '\n') this.fail();
          this.at += 1;
          this.previousWord = word;
          break;
        case '\n':
          if (this.operandEnded) this.printDepth = undefined;
          this.expectOperand();
          break;
        case '"':
          this.literal('"');
          this.operand();
          break;
        case '/':
          if (this.slash === 'unsure') this.fail();
          if (this.slash === 'regex') {
            this.literal('/');
            this.operand();
          } else {
            this.expectOperand();
          }
          break;
        case '(':
          this.parens.push(CONTROL.has(word));
          this.expectOperand();
          break;
        case ')': {
          const control = this.parens.pop();
          if (control === undefined) this.fail();
          if (this.printDepth !== undefined && this.parens.length < this.printDepth) this.printDepth = undefined;
          if (control) this.expectOperand();
          else this.operand();
          break;
        }
        case ']':
          this.operand();
          break;
        case ';':
        case '{':
        case '}':
          this.printDepth = undefined;
          this.expectOperand();
          break;
        case '>':
          if (this.printDepth === this.parens.length) return true;
          this.expectOperand();
          break;
        case '<':
          this.less = true;
          this.expectOperand();
          break;
        case '|':
          if (this.text[this.at] !== '|') return true;
          this.at += 1;
          this.expectOperand();
          break;
        case '+':
        case '-':
          if (this.text[this.at] === char) {
            this.at += 1;
            this.slash = 'unsure';
            this.operandEnded = false;
          } else {
            this.expectOperand();
          }
          break;
        case '@':
          return true;
        default:
          // Operators and punctuation after which an operand may follow; anything else (`#`, a control or non-ASCII character) is refused.
          if (!'$!~=,?:*%^&['.includes(char)) this.fail();
          this.expectOperand();
      }
    }
  }

  /** A name; true when it is `system`. */
  private word(first: string): boolean {
    let word = first;
    while (/[A-Za-z0-9_]/.test(this.text[this.at] ?? '')) word += this.text[(this.at += 1) - 1] as string;
    if (word === 'system') return true;
    if (word === 'getline') this.getline = true;
    if (word === 'print' || word === 'printf') this.printDepth = this.parens.length;
    this.previousWord = word;
    if (BEFORE_EXPRESSION.has(word)) this.expectOperand();
    else if (UNSURE_AFTER.has(word)) {
      this.slash = 'unsure';
      this.operandEnded = false;
    } else this.operand();
    return false;
  }

  /**
   * A string (`"`) or regular expression (`/`) literal after its opening
   * delimiter: a backslash escapes the next character (a newline too); a
   * bare newline or the end leaves it unterminated. In a regular
   * expression, a bracket expression is read as gawk reads it; one holding
   * `/`, `\`, `"`, `[` (other than a class) or a newline is refused, since
   * awks differ over where such a bracket ends.
   */
  private literal(delimiter: '"' | '/'): void {
    for (;;) {
      const char = this.text[this.at];
      this.at += 1;
      if (char === undefined || char === '\n') this.fail();
      if (char === delimiter) return;
      if (char === '\\') {
        if (this.text[this.at] === undefined) this.fail();
        this.at += 1;
      } else if (char === '[' && delimiter === '/') {
        this.bracket();
      }
    }
  }

  private bracket(): void {
    if (this.text[this.at] === '^') this.at += 1;
    if (this.text[this.at] === ']') this.at += 1;
    for (;;) {
      const char = this.text[this.at];
      this.at += 1;
      if (char === ']') return;
      if (char === '[' && /[:.=]/.test(this.text[this.at] ?? '')) {
        const kind = this.text[this.at] as string;
        const close = this.text.indexOf(`${kind}]`, this.at + 1);
        if (close === -1 || /[\n\\/"[]/.test(this.text.slice(this.at + 1, close))) this.fail();
        this.at = close + 2;
        continue;
      }
      if (char === undefined || /[\n\\/"[]/.test(char)) this.fail();
    }
  }

  private operand(): void {
    this.slash = 'divide';
    this.operandEnded = true;
  }

  private expectOperand(): void {
    this.slash = 'regex';
    this.operandEnded = false;
  }

  private fail(): never {
    throw new AwkProgramError('unreadable awk program');
  }
}
