import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { CliError } from '../cli-error.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { keyFileOf } from './open-journal-to-read.js';
import { stateRecord } from './state-record.js';

/**
 * With `journal.sign`, the journal is signed only with a key this user's
 * toolgate created: a repository can ship `keys/journal-ed25519.pem` (an
 * archive keeps its mode 0600), and rows signed with a key its author holds
 * prove nothing the author could not forge. A key already there that `home`'s
 * record does not vouch for refuses the start; call the returned function
 * once the journal is open, to vouch for a key that opening created.
 */
export function vouchSigningKey(config: ResolvedConfig, home = homedir()): () => void {
  if (!config.journal.sign) return () => undefined;
  const file = keyFileOf(config.journal.path);
  const record = stateRecord(config, home, 'journal-keys.json');
  const existing = keyText(file);
  if (existing !== undefined && !record.vouches(file, existing)) {
    throw new CliError('config', `${file} was not created by this user's toolgate: a repository can ship a journal signing key its author holds. Move the journal and its keys folder aside and start again, or, if you made this key, record it with \`toolgate audit trust-key\`.`);
  }
  return () => {
    const made = existing === undefined ? keyText(file) : undefined;
    if (made !== undefined) record.remember(file, made);
  };
}

/** The key file's text; undefined when there is none to read (the journal then refuses a link or an unreadable key itself). */
function keyText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
