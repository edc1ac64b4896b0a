/**
 * What every redaction pattern shares: the marker, where a secret token
 * ends, what is a placeholder rather than a secret, and how masked spans
 * are written.
 */
export const REDACTED = '[redacted]';

/** A text after masking, with the number of values masked in it. */
export interface RedactedText {
  readonly text: string;
  readonly masked: number;
}

/** `[start, end)` of one secret in a text. */
export type SecretSpan = readonly [start: number, end: number];

/**
 * Values that stand for a secret without being one: `<your-api-key-here>`,
 * `********`, `xxxx`, `...`, a vendor prefix with the rest elided
 * (`sk-ant-...`), a marker (`[redacted]`, `<redacted>`, `***masked***`),
 * a reference to where the real value lives (`$API_KEY`, `${API_KEY}`,
 * `{{ secrets.KEY }}`, `%API_KEY%`), and the literals a flag takes.
 * Masking them would hide what an example or a template says, and
 * `[redacted]` among them is what keeps masking idempotent.
 */
const PLACEHOLDER = new RegExp(
  `^(?:${[
    '[.*xX…]+',
    '(?:[A-Za-z0-9]+[-_])+[.*…]{3,}',
    '<[^<>]*>',
    '[[(<{]\\s*(?:redacted|masked|hidden|removed|omitted|filtered|censored)\\s*[\\])>}]',
    '\\*+\\s*(?:redacted|masked|hidden)\\s*\\*+',
    '\\$\\{[^{}]*\\}',
    '\\{\\{[^{}]*\\}\\}',
    '\\$[A-Za-z_][A-Za-z0-9_]*',
    '%[A-Za-z_][A-Za-z0-9_]*%',
    'true|false|null|nil|none|undefined',
  ].join('|')})$`,
  'i',
);

export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER.test(value);
}

const BASE64_WITH_SLASH = /^[A-Za-z0-9+]+(?:\/[A-Za-z0-9+]+)+={0,2}$/;
/** A folder name between slashes (`Users`, `docs`): random base64 almost never has one. */
const WORD_SEGMENT = /(?:^|\/)[A-Z]?[a-z]{2,}(?:\/|=*$)/;

/**
 * Where a secret value that starts at `start` and runs to `end` ends, once
 * path structure is taken out of it. A `/` belongs to the secret only when
 * the whole run is base64-shaped: 16 characters or more, upper- and
 * lower-case letters, nothing but `[A-Za-z0-9+]` between the slashes, no
 * empty segment, no dot and no segment that reads as a word (`Users`,
 * `src`), `=` padding at most (an AWS secret access key, a base64 blob).
 * Anything else ends at its first `/`: in
 * `src/api_key=0000/../../.git/config` the secret is `0000` and
 * `/../../.git/config` stays readable, and `PWD=/home/user` masks nothing.
 * A run without a dot has no `..`, so a base64-shaped run that is really a
 * path can only hide folders below the visible part, never a way out of it.
 */
export function pathSafeEnd(text: string, start: number, end: number): number {
  let slash = start;
  while (slash < end && text.charCodeAt(slash) !== 47) slash += 1;
  if (slash === end) return end;
  const run = text.slice(start, end);
  if (run.length >= 16 && BASE64_WITH_SLASH.test(run) && /[A-Z]/.test(run) && /[a-z]/.test(run) && !WORD_SEGMENT.test(run)) return end;
  return slash;
}

/** Characters a shell or a template reads as code: a masked value stops before the first (`codeSafeEnd`). */
const CODE_CHARACTERS = new Set([...'`$(){};|&<>\'"\\'].map((character) => character.charCodeAt(0)));
/**
 * Whether a character ends a line for some reader, or is a control: a C0
 * control (line feed, carriage return, vertical tab, form feed, the
 * separators U+001C–U+001E), DEL, U+0085, U+2028 and U+2029. JavaScript ends
 * a `//` comment at U+2028, YAML and Python's `splitlines` at U+0085: a mask
 * over one hid the lines after it.
 */
const endsLine = (code: number): boolean => code < 0x20 || code === 0x7f || code === 0x85 || code === 0x2028 || code === 0x2029;

/**
 * Where a secret value that starts at `start` and runs to `end` ends, once
 * anything that can carry code is taken out of it: the first backtick, `$`,
 * bracket of `()` or `{}`, `;`, `|`, `&`, `<`, `>`, quote or backslash ends
 * it, and the rest stays readable; so does a space, a line break of any
 * kind or a control character (`endsLine`): a masked value is one word. In
 * `env "DEPLOY password="x touch PWNED` the quote after the label closes a
 * string rather than opening a value, and a mask over `x touch PWNED` hid
 * the command `env` then ran; an argument member's value is one word too,
 * since a server may paste it into a command line unquoted (`PGPASSWORD=${password}
 * pg_dump …` ran `touch PWNED` from a password of `x touch PWNED #`). A value is masked by where it stands (a
 * URL's userinfo, a credential's label, a header), not by what it holds, so
 * without this cut a person approving a write read
 * `https://[redacted]@github.com` where the file got
 * ``https://deploy:x`touch${IFS}PWNED`@github.com``, which a shell then ran;
 * the same for `#{…}`, `${…}`, `@{…}` and `<%…%>` in a quoted value, and
 * `$(…)` in a bearer token or a cookie. A password holding one of these
 * characters is masked up to it only: the rest of it shows.
 */
export function codeSafeEnd(text: string, start: number, end: number): number {
  let at = start;
  while (at < end) {
    const code = text.charCodeAt(at);
    if (CODE_CHARACTERS.has(code) || endsLine(code) || code === 32) break;
    at += 1;
  }
  return at;
}

/**
 * A value masked whole because of its name (an argument member named like a
 * credential, an argument the operator marked secret): masked up to the
 * first character that can carry code (`codeSafeEnd`), the rest shown; one
 * that starts with such a character is shown as it is.
 */
export function maskBeforeCode(value: string): RedactedText {
  const cut = codeSafeEnd(value, 0, value.length);
  return cut === 0 ? { text: value, masked: 0 } : { text: `${REDACTED}${value.slice(cut)}`, masked: 1 };
}

/**
 * Replace each span by the marker. Spans may come from several patterns in
 * any order: overlapping or touching ones become one masked value.
 */
export function maskSpans(text: string, spans: readonly SecretSpan[]): RedactedText {
  if (spans.length === 0) return { text, masked: 0 };
  let ordered = true;
  for (let index = 1; index < spans.length && ordered; index += 1) ordered = (spans[index - 1] as SecretSpan)[0] <= (spans[index] as SecretSpan)[0];
  const sorted = ordered ? spans : [...spans].sort((left, right) => left[0] - right[0]);
  let output = '';
  let masked = 0;
  let last = 0;
  for (const [start, end] of sorted) {
    if (masked > 0 && start <= last) {
      last = Math.max(last, end);
      continue;
    }
    output += `${masked > 0 ? REDACTED : ''}${text.slice(last, start)}`;
    last = end;
    masked += 1;
  }
  return { text: `${output}${REDACTED}${text.slice(last)}`, masked };
}
