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
export function readAwkProgram(text: string): 'dangerous' | 'unreadable' | undefined {
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
      } else if (/[0-9.]/.test(char)) {
        // Digits only: letters after them are a name of their own to awk (`1system(…)` calls system).
        while (/[0-9.]/.test(this.text[this.at] ?? '')) this.at += 1;
        this.operand();
      } else if (this.symbol(char, word)) {
        return true;
      }
    }
  }

  /** Any character but a name's or a number's, after `word` (the name just before it, across blank space); true when it runs, writes or loads. */
  private symbol(char: string, word: string): boolean {
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
        this.slashAhead();
        break;
      case '(':
        this.parens.push(CONTROL.has(word));
        this.expectOperand();
        break;
      case ')':
        this.closeParen();
        break;
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
        this.plusOrMinus(char);
        break;
      case '@':
        return true;
      default:
        // Operators and punctuation after which an operand may follow; anything else (`#`, a control or non-ASCII character) is refused.
        if (!'$!~=,?:*%^&['.includes(char)) this.fail();
        this.expectOperand();
    }
    return false;
  }

  /** A `/`: a regular expression where no operand precedes it, a division after one, refused where awks disagree. */
  private slashAhead(): void {
    if (this.slash === 'unsure') this.fail();
    if (this.slash === 'regex') {
      this.literal('/');
      this.operand();
    } else {
      this.expectOperand();
    }
  }

  /** A `)`: after a control statement's condition a statement (so a regular expression) may start; after any other, an operand ended. */
  private closeParen(): void {
    const control = this.parens.pop();
    if (control === undefined) this.fail();
    if (this.printDepth !== undefined && this.parens.length < this.printDepth) this.printDepth = undefined;
    if (control) this.expectOperand();
    else this.operand();
  }

  /** `++` and `--` leave awks unsure what a `/` after them means; a single `+` or `-` is an operator. */
  private plusOrMinus(char: string): void {
    if (this.text[this.at] === char) {
      this.at += 1;
      this.slash = 'unsure';
      this.operandEnded = false;
    } else {
      this.expectOperand();
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
