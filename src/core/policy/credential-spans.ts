import { codeSafeEnd, isPlaceholder, maskBeforeCode, maskSpans, pathSafeEnd, type RedactedText, type SecretSpan } from './secret-token.js';

/**
 * Credentials found by where they stand: after a secret-named label, a
 * credential header or a query/assignment key. The value is masked and the
 * label kept, so a reader sees what was hidden.
 *
 * How strongly a name says "credential" decides where it counts:
 * - `name`: FOO_KEY / FOO_SECRET / FOO_TOKEN / FOO_PASSWORD (any case, with
 *   a separator), camelCase apiKey / clientSecret / accessToken, upper-case
 *   PGPASSWORD (libpq's) and MYSQL_PWD, bare password / passwd: after `:` or
 *   `=`, anywhere.
 * - `header`: Authorization (with or without a scheme), Proxy-Authorization
 *   and any other *-Authorization, X-Auth*, X-*-Token, X-*-Key, X-*-Secret,
 *   X-*-Signature; `cookie` and `set-cookie`: anywhere, the value read as a
 *   header value.
 * - `word`: token, secret, apikey, sig, pass, passphrase, credential(s)
 *   (and the longer names above) in
 *   `token=…`, as a quoted member name (`"token": …`) or with a quoted value
 *   (`token: "…"`), never in prose such as "the token: …".
 * - `parameter`: key, session, auth, signature, pwd only in `key=value` with
 *   nothing between (a query string, an environment assignment, a flag), so
 *   "The primary key: user_id" and `key = banana` stay as written, and upper-
 *   case `PWD` is the working-directory variable, not a password.
 */
type CredentialKind = 'name' | 'header' | 'cookie' | 'set-cookie' | 'word' | 'parameter';

const SECRET_NAME = new RegExp(
  '^(?:[A-Za-z0-9_.-]*[_.-](?:KEY|Key|key|SECRET|Secret|secret|TOKEN|Token|token|PASSWORD|Password|password|PASSWD|passwd|PASS|pass|CREDENTIALS?|Credentials?|credentials?)' +
    '|[A-Za-z0-9]*[a-z0-9](?:Key|Secret|Token|Password|Passwd|Credentials?)|[A-Z0-9]*PASSW(?:OR)?D|[A-Za-z0-9]+_PWD|password|passwd|Password)$',
);
const HEADER_NAME = /^(?:(?:[a-z0-9-]*-)?authorization|x-auth[a-z0-9-]*|x-[a-z0-9-]*-(?:token|key|secret|signature)(?:-\d+)?)$/i;
const WORDS = new Set([
  'token', 'secret', 'apikey', 'api_key', 'access_token', 'refresh_token', 'id_token', 'client_secret', 'private_key', 'password', 'passwd', 'sig',
  // `?user=deploy&pass=…`, a key file's passphrase, a member of credentials.
  'pass', 'passphrase', 'credential', 'credentials',
  // AWS Secrets Manager's members.
  'secretstring', 'secretbinary',
]);
const PARAMETERS = new Set(['key', 'session', 'auth', 'signature', 'pwd']);
/** Every credential name holds one of these: most names (`path`, `id`, `https`) leave after one test. */
const NAME_HINT = /key|secret|token|pass|credential|auth|cookie|sig|session|pwd/i;
const MAX_NAME = 128;

/** Names that end like a credential's and name no secret: a public key, an object's or a cache's key, a page's token. */
const NOT_A_SECRET = /(?:public|pub|object|cache|sort|partition|primary|foreign|idempotency|dedup|lookup|next|page|continuation|cursor)[_.-]?(?:keys?|tokens?)$/i;

function credentialKind(label: string): CredentialKind | undefined {
  if (label.length > MAX_NAME || !NAME_HINT.test(label) || NOT_A_SECRET.test(label)) return undefined;
  // `--token=…` is the flag `token`.
  let from = 0;
  while (label.charCodeAt(from) === 45) from += 1;
  const name = from === 0 ? label : label.slice(from);
  if (HEADER_NAME.test(name)) return 'header';
  const lower = name.toLowerCase();
  // `cookies`: a list of them (HAR's, a browser's), names and values alike.
  if (lower === 'cookie' || lower === 'cookies') return 'cookie';
  if (lower === 'set-cookie') return 'set-cookie';
  if (SECRET_NAME.test(name)) return 'name';
  // `headers.Authorization`, `config.token`: the last part names the value.
  const dot = name.lastIndexOf('.');
  const last = dot === -1 ? name : name.slice(dot + 1);
  if (dot !== -1 && HEADER_NAME.test(last)) return 'header';
  const word = last.toLowerCase();
  if (WORDS.has(word)) return 'word';
  if (PARAMETERS.has(word) && last !== 'PWD') return 'parameter';
  return undefined;
}

/** Schemes of an Authorization value: the word is kept, the credential after it masked. */
const AUTH_SCHEMES = new Set([
  'bearer', 'basic', 'token', 'digest', 'bot', 'negotiate', 'ntlm', 'oauth', 'mac', 'hawk', 'hoba', 'mutual', 'dpop', 'apikey', 'api-key', 'key',
  'sharedkey', 'sharedkeylite', 'sharedaccesssignature', 'aws4-hmac-sha256', 'googlelogin', 'ssws', 'splunk', 'vapid', 'scram-sha-1', 'scram-sha-256',
]);
/** `Digest username="…"`, `AWS4-HMAC-SHA256 Credential=…, Signature=…`: parameters, judged by their own names. */
const PARAMETER_LIST = /^[A-Za-z][\w-]*=/;
/** A scheme is a word (`SharedKey`, `Klaviyo-API-Key`); a first token with digits in a part is the credential itself. */
const SCHEME_WORD = /^[A-Za-z]+(?:-[A-Za-z0-9]+)*$/;
/** Shortest value masked in text; a known credential context (a scheme, a cookie) masks any length. */
const MIN_VALUE = 4;

const isSpace = (code: number): boolean => code === 32 || code === 9;
const isQuote = (code: number): boolean => code === 34 || code === 39;
const isNameChar = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 46 || code === 45;

function table(stops: string): Uint8Array {
  const stop = new Uint8Array(128);
  for (let code = 0; code <= 32; code += 1) stop[code] = 1;
  stop[127] = 1;
  for (const character of stops) stop[character.charCodeAt(0)] = 1;
  return stop;
}
/** An unquoted value stops at whitespace, quotes, separators and shell or template punctuation. */
const VALUE_STOPS = table('"\'`,;&|<>(){}[]\\');
/** A header value's token (`Bearer <token>`, `${TOKEN}`) stops at whitespace, quotes, `,`, `;`, `&`. */
const TOKEN_STOPS = table('"\'`,;&\\');
/** A cookie pair's value stops at `;`, whitespace, quotes and `,`; its name at `=` too. */
const COOKIE_VALUE_STOPS = table('"\'`,;\\');
const COOKIE_NAME_STOPS = table('"\'`,;\\=');

function runEnd(text: string, from: number, stops: Uint8Array): number {
  let at = from;
  for (; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code < 128 ? stops[code] === 1 : code === 0xa0 || code === 0x2028 || code === 0x2029 || code === 0x3000) break;
  }
  return at;
}

/**
 * Inside quotes a value may hold spaces; it ends at the closing quote, a
 * line end, an escape, a backtick or a `$(`, so a command substitution in a
 * shell string stays readable.
 */
function quotedEnd(text: string, from: number, quote: number): number {
  let at = from;
  for (; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code === quote || code === 92 || code === 10 || code === 13 || code === 96 || (code === 36 && text.charCodeAt(at + 1) === 40)) break;
  }
  return at;
}

function skipSpaces(text: string, from: number): number {
  let at = from;
  while (at < text.length && isSpace(text.charCodeAt(at))) at += 1;
  return at;
}

/** The masked part of `[start, end)`, or undefined for a placeholder or a value too short to be one. */
function secretPart(text: string, start: number, end: number, min: number): SecretSpan | undefined {
  const cut = codeSafeEnd(text, start, pathSafeEnd(text, start, end));
  if (cut - start < min || isPlaceholder(text.slice(start, cut))) return undefined;
  return [start, cut];
}

/** The secret of a value that starts at `start` (after its opening `quote`, if any), at least `min` characters long. */
export function plainValue(text: string, start: number, quote: number | undefined, min = MIN_VALUE): SecretSpan[] {
  const end = quote === undefined ? runEnd(text, start, VALUE_STOPS) : quotedEnd(text, start, quote);
  if (quote !== undefined && (isSpace(text.charCodeAt(start)) || isPlaceholder(text.slice(start, end)))) return [];
  const span = secretPart(text, start, end, min);
  return span === undefined ? [] : [span];
}

/** A credential after an unknown scheme word: long or with digits, in a credential's characters, and not a URL, a path or an option. */
const looksGenerated = (token: string): boolean =>
  ((token.length >= 8 && /\d/.test(token)) || token.length >= 20) && /^[A-Za-z0-9+_][A-Za-z0-9+/_~:-]*=*$/.test(token) && !token.includes('://');

/**
 * Whether the word after an authorization scheme reads as a credential:
 * base64 or token characters (no `:`), not an option (`-o`) nor a host's
 * name (`evil.example.com`), and long, or with a digit, both cases or `+/=`.
 * A word that does not (`touch`, `-o`, `127.0.0.1:8080`) is text that
 * follows the scheme: `Authorization=Basic touch PWNED` had the command
 * masked, and `-H Authorization:Token host/i.sh | sh` the host.
 */
const readsAsCredential = (token: string): boolean =>
  /^[A-Za-z0-9+/_~.=-]+$/.test(token) &&
  !/^--?[A-Za-z][A-Za-z-]*$/.test(token) &&
  !/^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/.test(token) &&
  (token.length >= 20 || /\d/.test(token) || (/[a-z]/.test(token) && /[A-Z]/.test(token)) || /[+/=]/.test(token));

/**
 * `Authorization: Bearer <token>` keeps the scheme and masks the token. A
 * value with no known scheme is the credential itself (`Authorization:
 * <value>`, `X-Api-Key: <value>`); when a word is followed by a generated-
 * looking token (`SharedKey account:c2lnbmF0dXJl…`) both are masked.
 */
function headerValue(text: string, start: number): SecretSpan[] {
  const firstEnd = runEnd(text, start, TOKEN_STOPS);
  if (firstEnd === start) return [];
  const first = text.slice(start, firstEnd);
  if (isPlaceholder(first)) return [];
  const next = skipSpaces(text, firstEnd);
  const secondEnd = next > firstEnd ? runEnd(text, next, TOKEN_STOPS) : next;
  const second = text.slice(next, secondEnd);
  if (AUTH_SCHEMES.has(first.toLowerCase())) {
    if (second.length === 0 || PARAMETER_LIST.test(second)) return [];
    const span = secretPart(text, next, secondEnd, 1);
    return span === undefined || !readsAsCredential(text.slice(span[0], span[1])) ? [] : [span];
  }
  const spans: SecretSpan[] = [];
  const span = secretPart(text, start, firstEnd, MIN_VALUE);
  if (span !== undefined) spans.push(span);
  if (span?.[1] !== firstEnd || !SCHEME_WORD.test(first) || !looksGenerated(second)) return spans;
  const token = secretPart(text, next, secondEnd, 1);
  if (token !== undefined) spans.push(token);
  return spans;
}

/** `Cookie: a=…; b=…` masks every value; `Set-Cookie: a=…; Path=/` the cookie's own value only. */
function cookieValue(text: string, start: number, kind: 'cookie' | 'set-cookie', min: number): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (let at = start, first = true; ; first = false) {
    const nameEnd = runEnd(text, at, COOKIE_NAME_STOPS);
    if (text.charCodeAt(nameEnd) !== 61) {
      // A lone value (`Cookie: 3f9a…`) is the credential; after a `;` it is text that follows.
      const lone = first ? secretPart(text, at, nameEnd, min) : undefined;
      if (lone !== undefined) spans.push(lone);
      return spans;
    }
    const valueEnd = runEnd(text, nameEnd + 1, COOKIE_VALUE_STOPS);
    const span = nameEnd + 1 < valueEnd ? secretPart(text, nameEnd + 1, valueEnd, 1) : undefined;
    if (span !== undefined) spans.push(span);
    if (kind === 'set-cookie' || (span !== undefined && span[1] < valueEnd)) return spans;
    const semicolon = skipSpaces(text, valueEnd);
    if (text.charCodeAt(semicolon) !== 59) return spans;
    at = skipSpaces(text, semicolon + 1);
  }
}

const suffixCode = (text: string, end: number): number =>
  ((text.charCodeAt(end - 3) | 0x20) << 16) | ((text.charCodeAt(end - 2) | 0x20) << 8) | (text.charCodeAt(end - 1) | 0x20);
/**
 * The last three letters of every credential name (key, secret, token, pass,
 * passphrase, passwd, password, credential(s), authorization, session,
 * cookie, sig, signature, auth, pwd), or a digit (`X-Hub-Signature-256`). A separator
 * after any other name is passed over before its name is even read: a
 * receipt has dozens of JSON members, and few are credentials.
 */
const SUFFIXES = new Set(['key', 'ret', 'ken', 'ass', 'ase', 'swd', 'ord', 'ial', 'als', 'ion', 'kie', 'sig', 'ure', 'uth', 'pwd'].map((suffix) => suffixCode(suffix, 3)));
/** X-Auth* names end in anything: when the text has one, every name is read. */
const X_AUTH = /x-auth/i;

const mayEndName = (text: string, end: number): boolean => {
  const last = text.charCodeAt(end - 1);
  return (last >= 48 && last <= 57) || SUFFIXES.has(suffixCode(text, end));
};

const isShellNameChar = (code: number): boolean => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;

/**
 * The variables a shell runs as a command by their value: `$NAME` or
 * `${NAME}` where a command starts (the text's start, or after a line
 * break, `;`, `&`, `|`, `(` or a backtick). Its value is then code:
 * `API_TOKEN=touch; $API_TOKEN PWNED` had `touch` masked. One pass.
 */
function namesRunAsCommands(text: string): Set<string> {
  const names = new Set<string>();
  for (let at = text.indexOf('$'); at !== -1; at = text.indexOf('$', at + 1)) {
    const from = at + (text.charCodeAt(at + 1) === 123 ? 2 : 1);
    let end = from;
    while (end < text.length && isShellNameChar(text.charCodeAt(end))) end += 1;
    if (end === from) continue;
    let before = at - 1;
    while (before >= 0 && isSpace(text.charCodeAt(before))) before -= 1;
    if (before < 0 || ';&|\n\r(`'.includes(text.charAt(before))) names.add(text.slice(from, end));
  }
  return names;
}

/** Spans of every credential that stands after a credential name in `text`. */
export function credentialSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  // Found separator-first: `indexOf` finds each `:` / `=`, a walk back finds the name, then the name is
  // classified; no pattern runs per position, and nothing before the last masked value is walked again.
  const anyName = X_AUTH.test(text);
  let commandNames: Set<string> | undefined;
  let floor = 0;
  let from = 0;
  let colon = text.indexOf(':');
  let equals = text.indexOf('=');
  for (;;) {
    if (colon !== -1 && colon < from) colon = text.indexOf(':', from);
    if (equals !== -1 && equals < from) equals = text.indexOf('=', from);
    const at = colon === -1 ? equals : equals === -1 ? colon : Math.min(colon, equals);
    if (at === -1) break;
    from = at + 1;
    let nameEnd = at;
    while (nameEnd > floor && isSpace(text.charCodeAt(nameEnd - 1))) nameEnd -= 1;
    const spacedBefore = nameEnd < at;
    let quotedName = false;
    if (nameEnd > floor && isQuote(text.charCodeAt(nameEnd - 1))) {
      quotedName = true;
      nameEnd -= 1;
      if (nameEnd > floor && text.charCodeAt(nameEnd - 1) === 92) nameEnd -= 1;
    }
    if (nameEnd - floor < 3 || (!anyName && !mayEndName(text, nameEnd))) continue;
    let nameStart = nameEnd;
    while (nameStart > floor && isNameChar(text.charCodeAt(nameStart - 1))) nameStart -= 1;
    if (nameStart === nameEnd) continue;
    let kind = credentialKind(text.slice(nameStart, nameEnd));
    // In JSON text a line starts after `\n`: `…\nTOKEN=` names TOKEN (and a path's `\token=` stays token).
    if (kind === undefined && text.charCodeAt(nameStart - 1) === 92 && 'nrt'.includes(text.charAt(nameStart))) kind = credentialKind(text.slice((nameStart += 1), nameEnd));
    if (kind === undefined) continue;
    const before = nameStart > 0 ? text.charCodeAt(nameStart - 1) : -1;
    // `https://x-access-token:…@host`: userinfo, which the userinfo pattern masks up to the `@`.
    if (before === 47 && text.charCodeAt(nameStart - 2) === 47 && text.charCodeAt(nameStart - 3) === 58) continue;
    quotedName &&= isQuote(before);
    let start = skipSpaces(text, at + 1);
    const spacedAfter = start > at + 1;
    let quote: number | undefined;
    if (text.charCodeAt(start) === 92 && isQuote(text.charCodeAt(start + 1))) start += 1;
    if (isQuote(text.charCodeAt(start))) {
      quote = text.charCodeAt(start);
      start += 1;
      // `"API_KEY=" + key`: the quote after `=` closes the string the name is in; no value follows.
      if (!quotedName && before === quote) continue;
    }
    const tight = text.charCodeAt(at) === 61 && !spacedBefore && !spacedAfter;
    if (kind === 'parameter' && !tight) continue;
    if (kind === 'word' && !tight && !quotedName && quote === undefined) continue;
    const found =
      kind === 'header'
        ? headerValue(text, start)
        : kind === 'cookie' || kind === 'set-cookie'
          ? // `Cookie=` is an assignment of one pair; a list of pairs is a header's (`Cookie:`): after `;` a shell reads commands.
            cookieValue(text, start, text.charCodeAt(at) === 61 ? 'set-cookie' : kind, MIN_VALUE)
          : plainValue(text, start, quote);
    if (found.length === 0) continue;
    // A variable a shell then runs as a command holds code, not a secret: shown.
    if (text.charCodeAt(at) === 61 && (kind === 'name' || kind === 'word' || kind === 'parameter')) {
      commandNames ??= namesRunAsCommands(text);
      if (commandNames.has(text.slice(nameStart, nameEnd))) continue;
    }
    // One push per span: spreading a cookie of 100,000 pairs into push() overflows the stack.
    for (const span of found) spans.push(span);
    floor = from = (found[found.length - 1] as SecretSpan)[1];
  }
  return spans;
}

/** Whether a member of this name holds a credential whatever its value says: `redactNamedValue` masks by it. */
export function namesCredential(name: string): boolean {
  const kind = credentialKind(name);
  return kind !== undefined && kind !== 'parameter';
}

/**
 * Whether the first item of a list of two names a credential the second is
 * the value of: a header's name (`['Authorization', …]`, fetch's
 * `HeadersInit`), or a name that could be no word of prose, with a
 * separator or in capitals (`['api-key', …]`, `['PRIVATE-TOKEN', …]`,
 * `['PGPASSWORD', …]`). A bare word (`['password', 'src/']`, a pattern and
 * a folder) and a flag are not: in an argument list the item after one is
 * what the call acts on as often as a secret.
 */
export function namesTupleCredential(item: string): boolean {
  const kind = credentialKind(item);
  if (kind === undefined || kind === 'parameter' || item.startsWith('-')) return false;
  return kind === 'header' || kind === 'cookie' || kind === 'set-cookie' || NAME_LIKE.test(item);
}

/** A name with a separator, or in capitals: no word of prose. */
const NAME_LIKE = /[-_.]|^[A-Z][A-Z0-9]*$/;

/**
 * The display form of an argument object's member named `name` whose value
 * is `value`, or undefined when the name does not say credential. Here the
 * whole string is the value: a header value keeps only a known scheme, a
 * cookie its names and attributes; placeholders stay, and so does what
 * follows a character that can carry code (`maskBeforeCode`). `parameter` names
 * (`key`, `session`, `auth`, `signature`, `pwd`) are not credentials as
 * member names: a keyboard key, a map key, a session name, a function
 * signature, a working directory.
 */
export function redactNamedValue(name: string, value: string): RedactedText | undefined {
  const kind = credentialKind(name);
  if (kind === undefined || kind === 'parameter') return undefined;
  if (value.length === 0 || isPlaceholder(value)) return { text: value, masked: 0 };
  if (kind === 'cookie' || kind === 'set-cookie') return maskSpans(value, cookieValue(value, 0, kind, 1));
  if (kind === 'header') {
    const schemeEnd = runEnd(value, 0, TOKEN_STOPS);
    const rest = skipSpaces(value, schemeEnd);
    if (rest > schemeEnd && rest < value.length && AUTH_SCHEMES.has(value.slice(0, schemeEnd).toLowerCase())) {
      if (isPlaceholder(value.slice(rest))) return { text: value, masked: 0 };
      const credential = maskBeforeCode(value.slice(rest));
      return { text: `${value.slice(0, rest)}${credential.text}`, masked: credential.masked };
    }
  }
  return maskBeforeCode(value);
}
