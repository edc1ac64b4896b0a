import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { signingKeyFingerprint } from '../../journal/sqlite/receipt-signer.js';
import { CliError } from '../cli-error.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { keyFileOf } from '../runtime/open-journal-to-read.js';
import { stateRecord } from '../runtime/state-record.js';

/**
 * `toolgate audit trust-key [--yes --fingerprint SHA256]`: record the
 * journal's signing key as this user's, for a key made before toolgate
 * recorded the keys it makes. Without `--yes` it names the key by the
 * sha256 of its public key and changes nothing; `--yes` records it only when
 * the fingerprint is the one shown, so a key swapped since is not vouched for.
 */
export function runAuditTrustKey(config: ResolvedConfig, options: { readonly yes?: boolean; readonly fingerprint?: string }, output: CliOutput, home = homedir()): void {
  if (options.yes === true && options.fingerprint === undefined) throw new CliError('usage', '--yes records the key you checked: give its fingerprint, as toolgate audit trust-key printed it (--fingerprint SHA256).');
  if (options.yes !== true && options.fingerprint !== undefined) throw new CliError('usage', '--fingerprint goes with --yes: it names the key to record.');
  const file = keyFileOf(config.journal.path);
  let text: string;
  let fingerprint: string;
  try {
    text = readFileSync(file, 'utf8');
    fingerprint = signingKeyFingerprint(text);
  } catch {
    throw new CliError('usage', `No readable signing key at ${file}.`);
  }
  if (options.yes !== true) {
    output.result({ trusted: false, key: file, fingerprint }, () =>
      [
        `the journal's signing key ${file} has the public key fingerprint ${fingerprint}.`,
        `Record it as yours only if you made it (a repository can ship a key its author holds): toolgate audit trust-key --yes --fingerprint ${fingerprint}`,
      ].join('\n'),
    );
    return;
  }
  if (options.fingerprint !== fingerprint) throw new CliError('usage', `The key at ${file} is not the one with fingerprint ${options.fingerprint ?? ''}: run toolgate audit trust-key again and check the key it names.`);
  stateRecord(config, home, 'journal-keys.json').remember(file, text);
  output.result({ trusted: true, key: file, fingerprint }, () => `recorded ${file} (${fingerprint}) as this user's signing key: the gateway signs with it from now on`);
}
