import { readGetopt, withArity, type GetoptGrammar } from './read-getopt.js';

/**
 * sed executes with the `e` command or the `e` flag of `s`, reads files with
 * `r`/`R` and writes with `w`/`W`, the `w` flag of `s`, `-i`, or a script read
 * from a file we cannot inspect. Options are read as GNU getopt reads them
 * (`readGetopt`: short clusters, any unambiguous prefix of a long option)
 * and every script is parsed with sed's grammar to find each command. Whatever cannot be read
 * this way is refused (fail closed). Returns the refused form (a fixed
 * description, never the script), or undefined.
 */
export function sedDanger(args: readonly string[]): string | undefined {
  const options = readSedOptions(args);
  if (options === 'in-place-or-file') return 'sed -i/-f';
  if (options === 'unreadable') return 'sed option that cannot be checked';
  return options.some((script) => !isSafeSedScript(script)) ? 'sed e/w/r command' : undefined;
}

const SED_GRAMMAR: GetoptGrammar = {
  short: { ...withArity('bnrsuzE', 'none'), ...withArity('elf', 'required'), i: 'optional' },
  long: {
    ...withArity(['expression', 'file', 'line-length'], 'required'),
    'in-place': 'optional',
    ...withArity(['null-data', 'zero-terminated', 'separate', 'sandbox', 'debug', 'posix', 'quiet', 'silent', 'regexp-extended', 'unbuffered', 'follow-symlinks', 'binary', 'help', 'version'], 'none'),
  },
};
const SED_REFUSED_OPTIONS = new Set(['i', 'f', 'in-place', 'file']);

/**
 * The scripts sed would run: the `-e`/`--expression` values joined by
 * newlines (as sed joins them), or else the first non-option argument. A
 * non-option argument before the first `-e` is checked too, since with
 * POSIXLY_CORRECT getopt stops there and takes it as the script.
 */
function readSedOptions(args: readonly string[]): readonly string[] | 'in-place-or-file' | 'unreadable' {
  const items = readGetopt(args, SED_GRAMMAR);
  if (items === undefined) return 'unreadable';
  const expressions: string[] = [];
  const positionals: string[] = [];
  let positionalBeforeExpression: string | undefined;
  for (const item of items) {
    if ('operand' in item) {
      positionals.push(item.operand);
      continue;
    }
    const value = item.value ?? '';
    if (SED_REFUSED_OPTIONS.has(item.option)) return 'in-place-or-file';
    if (item.option === 'e' || item.option === 'expression') {
      if (expressions.length === 0 && positionals.length > 0) positionalBeforeExpression = positionals[0];
      expressions.push(value);
    }
    if ((item.option === 'l' || item.option === 'line-length') && !/^[0-9]+$/.test(value)) return 'unreadable';
  }
  if (expressions.length === 0) return positionals.length === 0 ? [] : [positionals[0] as string];
  const joined = expressions.join('\n');
  return positionalBeforeExpression === undefined ? [joined] : [joined, positionalBeforeExpression];
}

class SedScriptError extends Error {}

/** Whether a sed script parses and holds no command or flag that executes, reads or writes a file. */
function isSafeSedScript(script: string): boolean {
  try {
    return new SedScriptReader(script).safe();
  } catch (error) {
    if (error instanceof SedScriptError) return false;
    throw error;
  }
}

// Commands that end where they stand (sed's read_end_of_cmd). `F` only prints the file name.
const SED_PLAIN_COMMANDS = '=dDgGhHnNpPxzF';
const SED_REFUSED_COMMANDS = 'ewWrR';
const SED_SUBSTITUTE_FLAGS = 'gpiImM0123456789';

/** A reader of GNU sed's script grammar (compile.c), just enough to see every command. */
class SedScriptReader {
  private at = 0;

  constructor(private readonly text: string) {}

  safe(): boolean {
    let depth = 0;
    for (;;) {
      this.skip((char) => /\s/.test(char) || char === ';');
      const first = this.next();
      if (first === undefined) return depth === 0;
      if (first === '#') {
        while (this.peek() !== undefined && this.peek() !== '\n') this.at += 1;
        continue;
      }
      const addressed = this.address(first);
      let command = addressed ? this.nonBlank() : first;
      if (addressed && command === ',') {
        if (!this.address(this.nonBlank())) this.fail();
        command = this.nonBlank();
      }
      if (command === '!') {
        command = this.nonBlank();
        if (command === '!') this.fail();
      }
      if (command === undefined) this.fail();
      if (SED_REFUSED_COMMANDS.includes(command)) return false;
      switch (command) {
        case '{':
          depth += 1;
          break;
        case '}':
          depth -= 1;
          if (depth < 0) this.fail();
          this.endOfCommand();
          break;
        case 'a':
        case 'i':
        case 'c':
          this.text_();
          break;
        case ':':
          if (addressed || this.label() === '' || this.peek() === '}') this.fail();
          break;
        case 'b':
        case 't':
        case 'T':
        case 'v':
          this.label();
          break;
        case 'q':
        case 'Q':
        case 'l':
          this.skipBlanks();
          this.digits();
          this.endOfCommand();
          break;
        case 's':
          if (!this.substitute()) return false;
          break;
        case 'y': {
          const delimiter = this.delimiter();
          this.delimited(delimiter, false);
          this.delimited(delimiter, false);
          this.endOfCommand();
          break;
        }
        default:
          if (!SED_PLAIN_COMMANDS.includes(command)) this.fail();
          this.endOfCommand();
      }
    }
  }

  /** An address starting with `first` (consumed); false when `first` starts none. */
  private address(first: string | undefined): boolean {
    if (first === undefined) return false;
    if (first === '/' || first === '\\') {
      this.delimited(first === '\\' ? this.delimiter() : '/', true);
      for (;;) {
        const save = this.at;
        const flag = this.nonBlank();
        if (flag !== 'I' && flag !== 'M') {
          this.at = save;
          return true;
        }
      }
    }
    if (/[0-9]/.test(first)) {
      this.digits();
      const save = this.at;
      if (this.nonBlank() === '~') {
        this.skipBlanks();
        this.digits();
      } else {
        this.at = save;
      }
      return true;
    }
    if (first === '+' || first === '~') {
      this.skipBlanks();
      this.digits();
      return true;
    }
    return first === '$';
  }

  /** `s`: pattern, replacement and flags. False when a flag executes or writes. */
  private substitute(): boolean {
    const delimiter = this.delimiter();
    this.delimited(delimiter, true);
    this.delimited(delimiter, false);
    for (;;) {
      const flag = this.next();
      if (flag === undefined || flag === '\n' || flag === ';') return true;
      if (flag === '}' || flag === '#') {
        this.at -= 1;
        return true;
      }
      if (flag === 'e' || flag === 'w') return false;
      if (flag !== ' ' && flag !== '\t' && !SED_SUBSTITUTE_FLAGS.includes(flag)) this.fail();
    }
  }

  /** The delimiter of `s`, `y` or `\cREc`: one ASCII character other than backslash and newline. */
  private delimiter(): string {
    const delimiter = this.next();
    if (delimiter === undefined || delimiter === '\\' || delimiter === '\n' || delimiter.charCodeAt(0) > 0x7e) this.fail();
    return delimiter;
  }

  /**
   * Up to and past the closing delimiter (sed's match_slash). A backslash
   * escapes the next character; a newline or the end is unterminated. In a
   * regular expression a bracket expression may hold the delimiter; to stay
   * on the safe side, one that holds it, a backslash or a newline is refused.
   */
  private delimited(delimiter: string, regex: boolean): void {
    for (;;) {
      const char = this.next();
      if (char === undefined || char === '\n') this.fail();
      if (char === delimiter) return;
      if (char === '\\') {
        if (this.next() === undefined) this.fail();
      } else if (char === '[' && regex) {
        this.bracket(delimiter);
      }
    }
  }

  /** A bracket expression after its `[`: `[]…]`, `[^]…]`, `[:class:]`, `[.x.]`, `[=x=]`. */
  private bracket(delimiter: string): void {
    if (this.peek() === '^') this.at += 1;
    if (this.peek() === ']') this.at += 1;
    for (;;) {
      const char = this.next();
      if (char === undefined || char === '\n' || char === '\\' || char === delimiter) this.fail();
      if (char === ']') return;
      const kind = this.peek();
      if (char === '[' && (kind === ':' || kind === '.' || kind === '=')) {
        const close = this.text.indexOf(`${kind}]`, this.at + 1);
        if (close === -1) this.fail();
        const inner = this.text.slice(this.at + 1, close);
        if (inner.includes('\n') || inner.includes('\\') || inner.includes(delimiter)) this.fail();
        this.at = close + 2;
      }
    }
  }

  /** The text of `a`, `i`, `c`: to the first unescaped newline (sed's read_text). */
  private text_(): void {
    this.skipBlanks();
    if (this.peek() === undefined) this.fail();
    // After a backslash the next character, a newline included, is taken as it is.
    if (this.peek() === '\\') this.at += 2;
    for (;;) {
      const char = this.next();
      if (char === undefined || char === '\n') return;
      if (char === '\\') this.at += 1;
    }
  }

  /** A label: after blanks, up to whitespace, `;` or `}` (sed's read_label). */
  private label(): string {
    this.skipBlanks();
    const start = this.at;
    this.skip((char) => !/\s/.test(char) && char !== ';' && char !== '}');
    return this.text.slice(start, this.at);
  }

  /** sed's read_end_of_cmd: blanks, then the end, a newline, `;`, or a `}`/`#` left for the next command. */
  private endOfCommand(): void {
    const char = this.nonBlank();
    if (char === '}' || char === '#') this.at -= 1;
    else if (char !== undefined && char !== '\n' && char !== ';') this.fail();
  }

  private digits(): void {
    this.skip((char) => /[0-9]/.test(char));
  }

  private skipBlanks(): void {
    this.skip((char) => char === ' ' || char === '\t');
  }

  private nonBlank(): string | undefined {
    this.skipBlanks();
    return this.next();
  }

  private skip(test: (char: string) => boolean): void {
    while (this.at < this.text.length && test(this.text[this.at] as string)) this.at += 1;
  }

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private next(): string | undefined {
    const char = this.text[this.at];
    if (char !== undefined) this.at += 1;
    return char;
  }

  private fail(): never {
    throw new SedScriptError('unreadable sed script');
  }
}
