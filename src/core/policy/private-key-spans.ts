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

function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/**
 * Private-key blocks, masked from the BEGIN armour to the END armour and no
 * further: the body is the base64 lines after BEGIN, and a block without
 * END ends at the first line that is not base64 (`# -----BEGIN PRIVATE
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
    let bodyStart = -1;
    let end = armourEnd;
    let headers = false;
    for (;;) {
      const newline = matchAt(NEWLINE, text, at) !== null;
      const line = newline ? NEWLINE.lastIndex : (matchAt(SPACES, text, at), SPACES.lastIndex);
      const closing = matchAt(END, text, line);
      if (closing !== null) {
        if (bodyStart === -1) bodyStart = END.lastIndex - (closing[1] ?? '').length;
        end = END.lastIndex;
        break;
      }
      // Header lines and blank lines, on lines of their own, come before the body.
      if (bodyStart === -1 && newline) {
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
      if (bodyStart === -1) bodyStart = BODY.lastIndex - material.length;
      at = end = BODY.lastIndex;
    }
    if (headers && bodyStart !== -1) spans.push([begin.index, armourEnd], [bodyStart, end]);
    else spans.push([begin.index, bodyStart === -1 ? armourEnd : end]);
    // Visible header lines are read again: one may hold the next BEGIN.
    BEGIN.lastIndex = end;
  }
  return spans;
}
