import { plainValue } from './credential-spans.js';
import { pathSafeEnd, type SecretSpan } from './secret-token.js';

/**
 * What a flag says of the word after it, when it is given with a blank
 * (`--password X`) rather than `=` (which `credentialSpans` reads): a
 * secret, or a `user:password` whose part after the first `:` is one (after
 * the first `%` in Samba's `user%password`). The
 * value may also be attached to a short flag (`mysql -pS3cret`), from
 * `attachedAt` on in the flag's own word; -1 when it is the next word.
 *
 * The flag's own name decides, never the value: the word after it is masked
 * only when the name says that word is a secret. Its last word is a
 * secret's (`password`, `passwd`, `pass`, `passphrase`, `pw`, `token`,
 * `secret`, `apikey`, `bearer`, a key of an `api`, `secret`, `access`,
 * `auth`, `account`, `master`, `license` or `subscription`), so a name whose
 * last word says the value is a place (`--password-file`, `--token-file`,
 * `--secret-path`, `--password-stdin`, `--token-dir`, `--key-file`,
 * `--identity-file`) masks nothing, nor does one that only switches
 * something on (`--no-password`, `--with-token`, `--show-token`,
 * `--ask-password`) or whose token names a page or a request
 * (`--next-token`, `--starting-token`, `--client-token`). Short flags mean
 * something else in every program (`-p` is a port as often as a password),
 * so they count only for the programs named here, as those programs read
 * them; and so does a `--password` that only says to prompt (libpq's, and
 * mysql's without `=`, where the word after it is the database).
 */
export interface FlagReading {
  readonly takes: 'secret' | 'userinfo' | 'samba-userinfo';
  readonly attachedAt: number;
}

/** Programs that read a credential flag their own way. */
type Family = 'libpq' | 'mysql' | 'curl' | 'takes-p' | 'redis' | 'samba';
export type ProgramFamily = Family | undefined;

const FAMILIES = new Map<string, Family>([
  ...['psql', 'pg_dump', 'pg_dumpall', 'pg_restore', 'pg_basebackup', 'pg_receivewal', 'pg_recvlogical', 'pgbench', 'pgcli', 'createdb', 'createuser', 'dropdb', 'dropuser', 'clusterdb', 'reindexdb', 'vacuumdb'].map(
    (name) => [name, 'libpq'] as const,
  ),
  ...['mysql', 'mysqldump', 'mysqladmin', 'mysqlcheck', 'mysqlimport', 'mysqlshow', 'mysqlslap', 'mysqlpump', 'mysqlbinlog', 'mariadb', 'mariadb-dump', 'mariadb-admin', 'mariadb-check', 'mariadb-import', 'mariadb-show', 'mariadb-slap', 'mariadb-binlog'].map(
    (name) => [name, 'mysql'] as const,
  ),
  ['curl', 'curl'],
  // `-p` is the password, with a blank or attached.
  ...['sshpass', 'mongosh', 'mongo', 'mongodump', 'mongorestore', 'mongoexport', 'mongoimport'].map((name) => [name, 'takes-p'] as const),
  ['redis-cli', 'redis'],
  // `-U user%password`, `--user user%password`.
  ...['smbclient', 'rpcclient', 'smbcacls', 'smbcquotas', 'smbget', 'smbtree', 'net'].map((name) => [name, 'samba'] as const),
]);

/** The family of the program a word names (`psql`, `/usr/bin/mysql`), or undefined. */
export function programFamily(word: string): ProgramFamily {
  return FAMILIES.get(word.slice(word.lastIndexOf('/') + 1));
}

/** The short flags each family reads a secret from. */
const SHORT: Readonly<Record<Family, Readonly<Record<string, FlagReading['takes']>>>> = {
  libpq: {},
  mysql: { p: 'secret' },
  curl: { u: 'userinfo', U: 'userinfo' },
  'takes-p': { p: 'secret' },
  redis: { a: 'secret' },
  samba: { U: 'samba-userinfo' },
};

/**
 * The short flags of each family that take no value, so a cluster reads on
 * past them to its next letter (`curl -fsSu user:X`, `mysql -vpX`); a
 * letter that takes one (`mysql -Dprod`) ends the cluster, the rest being
 * its value.
 */
const SWITCHES: Readonly<Record<Family, string>> = {
  libpq: '',
  mysql: 'ABCEfGHinNqrstTUvVX',
  curl: '0123456#aBfGgIijJkLlMNnOpqRSsVvZ',
  'takes-p': 'ehvV',
  redis: 'cexv23',
  samba: 'CEegkNP',
};

/** What a cluster of short flags (`-pX`, `-su`, `-vpX`) says of the value after it in a program of `family`: its secret letter's reading. */
function readShortCluster(flag: string, family: Family): FlagReading | undefined {
  for (let at = 1; at < flag.length; at += 1) {
    const letter = flag.charAt(at);
    const takes = SHORT[family][letter];
    if (takes !== undefined) {
      if (at + 1 < flag.length) return { takes, attachedAt: at + 1 };
      // mysql's `-p` with a blank only says to prompt: the word after it is the database.
      return family === 'mysql' ? undefined : { takes, attachedAt: -1 };
    }
    if (!SWITCHES[family].includes(letter)) return undefined;
  }
  return undefined;
}

/** The letters of the short flags some program reads a secret from. */
const SHORT_SECRET_LETTERS: ReadonlySet<string> = new Set(Object.values(SHORT).flatMap((letters) => Object.keys(letters)));

/** Whether a one-dash word may be a cluster `readFlag` reads a secret after: one of its letters is a secret's (`-p`, `-fsSu`). */
export function holdsShortSecretLetter(flag: string): boolean {
  for (let at = 1; at < flag.length; at += 1) if (SHORT_SECRET_LETTERS.has(flag.charAt(at))) return true;
  return false;
}

const SECRET_WORDS = new Set(['password', 'passwd', 'pass', 'passphrase', 'pw', 'token', 'secret', 'apikey', 'bearer']);
/** Keytool's and others' names in one word. */
const SECRET_NAMES = new Set(['storepass', 'keypass', 'srcstorepass', 'deststorepass', 'srckeypass', 'destkeypass', 'authtoken', 'accesstoken', 'clientsecret', 'secretkey', 'apisecret']);
const KEY_OWNERS = new Set(['api', 'secret', 'access', 'auth', 'account', 'master', 'license', 'subscription']);
/** A word that makes the flag a switch, or its token a page's or a request's, not a secret. */
const NOT_A_VALUE = new Set([
  'no', 'not', 'without', 'with', 'show', 'print', 'ask', 'prompt', 'read', 'use', 'force', 'skip', 'require', 'generate', 'random', 'empty', 'reset',
  'remember', 'save', 'store', 'keep', 'allow', 'disable', 'enable', 'insecure', 'check', 'verify', 'validate', 'interactive', 'stdin', 'max', 'min',
]);
/** A token of a page or a request (AWS's `--starting-token`, `--client-token`): a cursor, not a credential. */
const NOT_A_SECRET_TOKEN = new Set(['next', 'page', 'pagination', 'continuation', 'starting', 'cursor', 'idempotency', 'client', 'cancel']);
/** Long flags whose value is `user:password` in curl. */
const USERINFO_NAMES = new Set(['user', 'proxy-user']);

/** The words of a flag's name, in lower case: `--client-secret`, `--client_secret` and `--clientSecret` alike. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .split(/[-_.]+/)
    .filter((word) => word.length > 0);
}

function secretName(name: string, family: ProgramFamily): FlagReading['takes'] | undefined {
  if (family === 'curl' && USERINFO_NAMES.has(name)) return 'userinfo';
  if (family === 'samba' && name === 'user') return 'samba-userinfo';
  const words = nameWords(name);
  const head = words[words.length - 1] ?? '';
  const secret = SECRET_WORDS.has(head) || SECRET_NAMES.has(head) || (head === 'key' && KEY_OWNERS.has(words[words.length - 2] ?? ''));
  if (!secret || words.some((word) => NOT_A_VALUE.has(word))) return undefined;
  if (head === 'token' && NOT_A_SECRET_TOKEN.has(words[words.length - 2] ?? '')) return undefined;
  // libpq's `--password` and mysql's (any prefix of it, as mysql reads one) only say to prompt.
  if (family === 'libpq' && words.length === 1 && head === 'password') return undefined;
  if (family === 'mysql' && words.length === 1 && name.length >= 3 && 'password'.startsWith(head)) return undefined;
  return 'secret';
}

/** What `flag` (one whole word, `--password`, `-pS3cret`) says of the value after it, in a program of `family`. */
export function readFlag(flag: string, family: ProgramFamily): FlagReading | undefined {
  if (flag.charCodeAt(0) !== 45 || flag.length < 2) return undefined;
  const long = flag.charCodeAt(1) === 45;
  if (!long) {
    const short = family === undefined ? undefined : readShortCluster(flag, family);
    if (short !== undefined || (family !== undefined && SHORT[family][flag.charAt(1)] !== undefined)) return short;
    // A one-dash long name (keytool's `-storepass`); one letter says nothing.
    if (flag.length < 4) return undefined;
  }
  // `--password=X` is a label and its value, which `credentialSpans` reads.
  if (flag.includes('=')) return undefined;
  const takes = secretName(flag.slice(long ? 2 : 1), family);
  return takes === undefined ? undefined : { takes, attachedAt: -1 };
}

/** Letters every flag `readFlag` may take holds, in any case: most flags (`-rf`, `--force`) leave after one test. */
export const SECRET_FLAG_HINT = /pass|pw|token|secret|key|bearer|user/i;

/** A host's name or an IPv4 address, which a call acts on. */
const HOST = /^(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}$|^\d{1,3}(?:\.\d{1,3}){3}$/;
/** `id=npmrc,src=…` (a build secret's spec): its own pairs are judged by their names. */
const SPEC = /^[A-Za-z_][\w.-]*=/;
/** Where OpenSSL and tools like it read a password from (`env:NAME`, `file:path`, `fd:3`, `stdin`); `pass:` gives it. */
const SOURCE = /^(?:env|file|fd):|^stdin$/;
const GIVEN = 'pass:';

/**
 * Whether a flag's value is no secret but where the call acts or what it
 * reads one from, and stays shown: another option or `-` (stdin), a file
 * (`@file`, `/…`, `./…`, `~/…`, `src/`, `file:…`, `env:NAME`, `fd:3`, `stdin`), a
 * URL (its password is masked as userinfo), a host's name or address, or a
 * spec of `name=value` pairs.
 */
function valueNamesPlace(word: string): boolean {
  const first = word.charCodeAt(0);
  // `-`, `@`, `/`, `.`, `~`
  if (first === 45 || first === 64 || first === 47 || first === 46 || first === 126) return true;
  // A path (`src/`, `certs/token`), unless the whole of it is base64 (`pathSafeEnd`).
  if (pathSafeEnd(word, 0, word.length) < word.length) return true;
  return word.includes('://') || SPEC.test(word) || SOURCE.test(word) || HOST.test(word);
}

const isQuote = (code: number): boolean => code === 34 || code === 39;
/** Where the word that starts at `start` ends for `valueNamesPlace`: a blank, a quote or a line end. */
function wordEnd(text: string, start: number): number {
  let at = start;
  for (; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    if (code <= 32 || isQuote(code)) break;
  }
  return at;
}

/**
 * The secret a flag's value holds, in `text` from `start` (a quote there
 * opens it), as `takes` says: the whole value, or what follows the first
 * `:` of a `user:password`. Undefined for a value that names a place
 * (`valueNamesPlace`), a placeholder, or one shorter than `min` (as a
 * value after a label in text, when not given); it ends
 * where a value after a label ends (`plainValue`: before a `/` of a path
 * and before anything that can carry code).
 */
export function flagValueSpan(text: string, start: number, takes: FlagReading['takes'], min?: number): SecretSpan | undefined {
  const quote = isQuote(text.charCodeAt(start)) ? text.charCodeAt(start) : undefined;
  const from = quote === undefined ? start : start + 1;
  const end = wordEnd(text, from);
  const word = text.slice(from, end);
  if (word.length === 0 || valueNamesPlace(word)) return undefined;
  // OpenSSL's `pass:X`: the label stays.
  if (takes === 'secret') return plainValue(text, word.startsWith(GIVEN) ? from + GIVEN.length : from, quote, min)[0];
  const separator = word.indexOf(takes === 'userinfo' ? ':' : '%');
  return separator === -1 ? undefined : plainValue(text, from + separator + 1, quote, min)[0];
}
