import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { readSigningKeyFile, signingKeyFingerprint } from '../../journal/sqlite/receipt-signer.js';
import type { SqliteJournal } from '../../journal/sqlite/sqlite-journal.js';
import { ConfigurationError } from '../../core/internal.js';
import { CliError } from '../cli-error.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { keyFileOf } from './open-journal-to-read.js';
import { stateRecord } from './state-record.js';

/**
 * With `journal.sign`, the journal is signed only with a key this user's
 * toolgate created: a repository can ship `keys/journal-ed25519.pem` (an
 * archive keeps its mode 0600), and rows signed with a key its author holds
 * prove nothing the author could not forge. A key already there that `home`'s
 * record does not vouch for refuses the start, before the journal is opened.
 * Call the returned function with the journal once it is open: the key it
 * opened must be one the record vouches for, or one that opening made (then
 * recorded). A key swapped, or planted where there was none, between this
 * check and the open is refused (the caller closes the journal).
 */
export function vouchSigningKey(config: ResolvedConfig, home = homedir()): (journal: SqliteJournal) => void {
  if (!config.journal.sign) return () => undefined;
  const file = keyFileOf(config.journal.path);
  const record = stateRecord(config, home, 'journal-keys.json');
  const existing = keyText(file);
  if (existing !== undefined && !record.vouches(file, existing)) throw notThisUsers(file);
  return (journal) => {
    if (journal.publicKey === undefined) return;
    // The key file as it is now, and the key the journal signs with: the same key, or the file changed after the open.
    const now = keyText(file);
    if (now === undefined || publicKeyOf(now) !== journal.publicKey) throw new CliError('config', `${file} changed while the journal was opened: start again.`);
    if (record.vouches(file, now)) return;
    if (!journal.signingKeyCreated) throw notThisUsers(file);
    record.remember(file, now);
  };
}

function notThisUsers(file: string): CliError {
  return new CliError('config', `${file} was not created by this user's toolgate: a repository can ship a journal signing key its author holds. Move the journal and its keys folder aside and start again, or, if you made this key, record it with \`toolgate audit trust-key\`.`);
}

/** The public key (PEM) of a signing key's text, as the journal names its own; undefined for text that is no key. */
function publicKeyOf(pem: string): string | undefined {
  try {
    return createPublicKey(pem).export({ type: 'spki', format: 'pem' }).toString();
  } catch {
    return undefined;
  }
}

/** The key file's text; undefined when there is none to read (the journal then refuses a link or an unreadable key itself). */
function keyText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The journal's signing key as `toolgate audit verify` checks the journal with it, and whether it is this user's. */
export interface SigningKeyToVerify {
  readonly file: string;
  /** The key's text, read once: the key vouched for is the key every signature is checked with. */
  readonly pem: string;
  /** The sha256 of its public key, as `toolgate audit trust-key` shows it. */
  readonly fingerprint: string;
  /** Whether `home`'s record vouches for it: made by this user's toolgate, or recorded with `toolgate audit trust-key`. */
  readonly trusted: boolean;
}

/**
 * The signing key beside the journal, read once through no link, and
 * whether this user's toolgate vouches for it. A repository can ship a
 * journal with the key that signed it: the signatures then hold, and prove
 * only that the key's holder wrote the rows. A key that is missing, a link
 * or not a private Ed25519 key is a configuration error: nothing could be checked.
 */
export function signingKeyToVerify(config: ResolvedConfig, home = homedir()): SigningKeyToVerify {
  const file = keyFileOf(config.journal.path);
  let pem: string;
  let fingerprint: string;
  try {
    pem = readSigningKeyFile(file);
    fingerprint = signingKeyFingerprint(pem);
  } catch (error) {
    const why = error instanceof ConfigurationError ? ` (it ${error.problemText})` : '';
    throw new CliError('config', `journal.sign is on, but the signing key ${file} cannot be read${why}: the signatures cannot be checked.`, { cause: error });
  }
  return { file, pem, fingerprint, trusted: stateRecord(config, home, 'journal-keys.json').vouches(file, pem) };
}
