import { flagValueSpan, holdsShortSecretLetter, programFamily, readFlag, SECRET_FLAG_HINT, type ProgramFamily } from './secret-flags.js';
import type { SecretSpan } from './secret-token.js';

const isBlank = (code: number): boolean => code === 32 || code === 9;
const isQuote = (code: number): boolean => code === 34 || code === 39;
/** Where a command starts again: a shell's separators and substitutions. */
const SEPARATORS = new Set([...';&|()`\n\r'].map((character) => character.charCodeAt(0)));
/** What ends a word: a blank or a line end, a quote, a separator, a redirection, a bracket, `,` or `=`. */
const ENDS_WORD = new Set([...'"\'<>{}[],='].map((character) => character.charCodeAt(0)));
const endsWord = (code: number): boolean => code <= 32 || SEPARATORS.has(code) || ENDS_WORD.has(code);
/** Before a flag: the text's start, a blank or a line end, a quote, a separator. */
const startsFlag = (code: number): boolean => code <= 32 || isQuote(code) || SEPARATORS.has(code);

/** What ends a shell word: a blank or a line end, a separator, a redirection, a bracket, `,` or `=`; quotes join. */
const endsShellWord = (code: number): boolean => code <= 32 || SEPARATORS.has(code) || (ENDS_WORD.has(code) && !isQuote(code));
const QUOTING = /["'\\]/g;

/**
 * The program family of the command each place of a text is in, read
 * forwards and only as far as asked, so a text is read once however many
 * flags it holds: a word naming a program of a family (`psql`,
 * `/usr/bin/mysql`, also after `sudo`, `env` or `docker exec … --`) sets
 * it, as the shell reads the word once its quotes and escapes are gone
 * (`"psql"`, `ps''ql` and `p\sql` run psql), and a separator (`;`, `&`,
 * `|`, a bracket, a backtick, a line end) clears it.
 */
function familyReader(text: string): (at: number) => ProgramFamily {
  let read = 0;
  let family: ProgramFamily;
  return (at) => {
    while (read < at) {
      const code = text.charCodeAt(read);
      if (SEPARATORS.has(code)) family = undefined;
      if (endsShellWord(code)) {
        read += 1;
        continue;
      }
      let end = read + 1;
      while (end < text.length && !endsShellWord(text.charCodeAt(end))) end += 1;
      // Options, long words and an assignment's name (`psql=1`) name no program.
      if (code !== 45 && end - read <= 64 && text.charCodeAt(end) !== 61) family = programFamily(text.slice(read, end).replace(QUOTING, '')) ?? family;
      read = end;
    }
    return family;
  };
}

/** Where the value after a flag ending at `end` starts: past blanks and `\` line continuations; -1 when none does. */
function valueStart(text: string, end: number): number {
  let at = end;
  for (;;) {
    while (at < text.length && isBlank(text.charCodeAt(at))) at += 1;
    if (text.charCodeAt(at) !== 92) break;
    const lineEnd = text.charCodeAt(at + 1) === 13 ? at + 2 : at + 1;
    if (text.charCodeAt(lineEnd) !== 10) break;
    at = lineEnd + 1;
  }
  return at > end && at < text.length ? at : -1;
}

/** npm's `.npmrc` keys that hold a secret, after `//registry/:`: `npm config set //host/:_authToken X`. */
const NPMRC_SECRETS = ['_authToken', '_auth', '_password'];

/** Spans of the `.npmrc` secrets given as `<key> <value>`. */
function npmrcValueSpans(text: string, spans: SecretSpan[]): void {
  for (let at = text.indexOf(':_'); at !== -1; at = text.indexOf(':_', at + 2)) {
    const name = NPMRC_SECRETS.find((key) => text.startsWith(key, at + 1));
    if (name === undefined) continue;
    const end = at + 1 + name.length;
    const start = end < text.length && isBlank(text.charCodeAt(end)) ? valueStart(text, end) : -1;
    // A value is no key of its own (`:_authToken :_authToken`).
    const span = start === -1 || text.charCodeAt(start) === 58 ? undefined : flagValueSpan(text, start, 'secret');
    if (span === undefined) continue;
    spans.push(span);
    at = span[1];
  }
}

/**
 * Secrets given after a flag and a blank, in one text (`docker login
 * --password X registry`, `kubectl --token X`, `mysql -pX`, `curl -u
 * user:X`), as `readFlag` reads the flag in the program it is given to, and
 * npm's `:_authToken X`. Flags are found from each `-` that starts a word;
 * nothing before the last masked value is read again.
 */
export function flagValueSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  if (text.includes(':_')) npmrcValueSpans(text, spans);
  let familyAt: ((at: number) => ProgramFamily) | undefined;
  for (let at = text.indexOf('-'); at !== -1; at = text.indexOf('-', at + 1)) {
    if (at > 0 && !startsFlag(text.charCodeAt(at - 1))) continue;
    let end = at + 1;
    while (end < text.length && !endsWord(text.charCodeAt(end))) end += 1;
    if (end - at < 2) continue;
    const flag = text.slice(at, end);
    // A name must say secret; one letter (`-p`, `-u`, `-a`) counts only in a program that reads it so.
    const second = flag.charAt(1);
    if ((second === '-' || !holdsShortSecretLetter(flag)) && (flag.length < 4 || !SECRET_FLAG_HINT.test(flag))) continue;
    familyAt ??= familyReader(text);
    // `-p'S3cret'`, `-vp'S3cret'`: a short flag's value attached in quotes is read from its opening quote.
    const quoted = second !== '-' && isQuote(text.charCodeAt(end)) && text.charCodeAt(end) !== text.charCodeAt(at - 1);
    const reading = (quoted ? readFlag(text.slice(at, end + 1), familyAt(at)) : undefined) ?? readFlag(flag, familyAt(at));
    if (reading === undefined) continue;
    let start = reading.attachedAt === -1 ? -1 : at + reading.attachedAt;
    if (start === -1) {
      // `"--password" "X"`: the quote that opened the flag closes it.
      const closed = isQuote(text.charCodeAt(end)) && text.charCodeAt(end) === text.charCodeAt(at - 1) ? end + 1 : end;
      start = valueStart(text, closed);
    }
    const span = start === -1 ? undefined : flagValueSpan(text, start, reading.takes);
    if (span === undefined) continue;
    spans.push(span);
    at = span[1];
  }
  return spans;
}
