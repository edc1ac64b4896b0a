import type { SecretSpan } from './secret-token.js';

const ARMOUR = '[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----';
const BEGIN = new RegExp(`-----BEGIN ${ARMOUR}`, 'g');
/** A line break, real or JSON-escaped; else the spaces (or nothing) of a key pasted onto one line. */
const NEWLINE = /[ \t]*(?:\r?\n|\\r\\n|\\n)/y;
const SPACES = /[ \t]*/y;
/** A diff marks a line with `-` or `+`: a key in a diff is still a key. */
const END = new RegExp(`[ \\t]*[-+]?(-----END ${ARMOUR})`, 'y');
/** `Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`, PGP's `Comment: …`: shown, not masked. */
const HEADER = /[ \t]*[A-Za-z][A-Za-z0-9-]*:[ \t][^\r\n\\]*/y;
/** A base64 line; PGP's checksum line starts with `=`. */
const BODY = /[ \t]*[-+]?(=?[A-Za-z0-9+/]+={0,2})(?=$|[\s\\"'`])/y;
/**
 * Base64 of key material has upper-case letters (or `+`, or padding) on
 * every line but, rarely, a short last one; a word or a path (`reboot`,
 * `/sbin/reboot`) has none, so it ends the block and stays readable.
 */
const KEY_MATERIAL = /[A-Z+=]/;

/** Shortest line of a key's body: every key PEM holds (an Ed25519 key in PKCS #8 is one line of 64) is longer. */
const MIN_KEY_WIDTH = 40;

/**
 * How many of a block's body runs, from the first, are a key's: runs of one
 * width, 40 characters or more (PEM writers wrap at 64, OpenSSH at 70, MIME
 * at 76), then at most one shorter (the last line, or PGP's checksum), which
 * must end the block: the END armour, or the end of the text, follows it. A
 * heredoc's `EOF` after a key's line, taken for its last line, ended the
 * heredoc unseen, and the command after it read as the file's text. A line
 * of another width is not a key's line: a shell script holding `-----BEGIN PRIVATE KEY-----`, then `/usr/bin/X11/touch
 * PWNED` (a path with a capital, and a word in capitals, each of base64's
 * characters) and `-----END PRIVATE KEY-----` showed `[redacted]` where a
 * shell then ran the command.
 */
function keyRuns(widths: readonly number[], endsBlock: boolean): number {
  const width = widths[0] ?? 0;
  if (width < MIN_KEY_WIDTH) return 0;
  let runs = 0;
  while (runs < widths.length && widths[runs] === width) runs += 1;
  // A shorter last line only where the block ends with it: before END, or at the end of the text (a key cut short).
  return endsBlock && runs === widths.length - 1 && (widths[runs] ?? width) < width ? runs + 1 : runs;
}

function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/**
 * Private-key blocks, masked from the BEGIN armour to the END armour and no
 * further: the body is the base64 lines after BEGIN, of a key's width
 * (`keyRuns`: a line of another width and all after it stay readable, the
 * END armour too), each a line of its own unless the key was pasted onto the
 * BEGIN line (a word after a space, `…X11/touch PWNED`, is no key's line), and a block without END ends at the first line that is
 * not base64 (`# -----BEGIN PRIVATE
 * KEY-----` followed by a `[core]` section masks the armour only, and so
 * does `echo -----BEGIN PRIVATE KEY----- >/dev/null; touch PWNED`). Header
 * lines between the armour and the body stay visible, so such a block is
 * two masked values.
 */
export function privateKeySpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  BEGIN.lastIndex = 0;
  for (let begin = BEGIN.exec(text); begin !== null; begin = BEGIN.exec(text)) {
    const armourEnd = BEGIN.lastIndex;
    let at = armourEnd;
    let headers = false;
    /** Each body run: where it starts and ends. */
    const runs: (readonly [number, number])[] = [];
    let closing: RegExpExecArray | null = null;
    /** Whether the body began on a line of its own: then each run is a line, and a run after a space on the same line is no key's. */
    let ownLines = false;
    for (;;) {
      const newline = matchAt(NEWLINE, text, at) !== null;
      const line = newline ? NEWLINE.lastIndex : (matchAt(SPACES, text, at), SPACES.lastIndex);
      closing = matchAt(END, text, line);
      if (closing !== null) {
        // A run sharing its line with the END armour: a program given the armour's words, not a key's line.
        if (ownLines && !newline && runs.length > 0) {
          runs.pop();
          closing = null;
        }
        break;
      }
      if (ownLines && !newline && line < text.length) {
        // The run before shares its line with more (`touch PWNED`, `touch"" PWNED`): a command, not a key's line.
        runs.pop();
        break;
      }
      // Header lines and blank lines, on lines of their own, come before the body.
      if (runs.length === 0 && newline) {
        if (matchAt(HEADER, text, line) !== null) {
          headers = true;
          at = HEADER.lastIndex;
          continue;
        }
        if (matchAt(NEWLINE, text, line) !== null) {
          at = line;
          continue;
        }
      }
      const body = matchAt(BODY, text, line);
      const material = body?.[1];
      if (material === undefined || !KEY_MATERIAL.test(material)) break;
      if (runs.length === 0) ownLines = newline;
      runs.push([BODY.lastIndex - material.length, BODY.lastIndex]);
      at = BODY.lastIndex;
    }
    const kept = keyRuns(
      runs.map(([start, stop]) => stop - start),
      closing !== null || /^\s*$/.test(text.slice(runs.at(-1)?.[1] ?? armourEnd)),
    );
    // The whole block, the END armour with it, when every run is a key's; else the armour and the runs that are.
    const whole = closing !== null && kept === runs.length;
    const bodyStart = runs[0]?.[0] ?? (whole ? END.lastIndex - (closing?.[1] ?? '').length : -1);
    const end = whole ? END.lastIndex : kept > 0 ? (runs[kept - 1] as readonly [number, number])[1] : armourEnd;
    if (headers && bodyStart !== -1 && (whole || kept > 0)) spans.push([begin.index, armourEnd], [bodyStart, end]);
    else spans.push([begin.index, end]);
    // Visible header lines are read again: one may hold the next BEGIN.
    BEGIN.lastIndex = end;
  }
  return spans;
}
