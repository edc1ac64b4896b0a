import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { createJournalAudit, createSqliteJournal } from '../../journal/sqlite/index.js';
import { CliError } from '../cli-error.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { journalRecord } from '../runtime/vouch-journal.js';

/** What a person checks before adopting a journal: its id, and what it holds. */
interface JournalSummary {
  readonly id: string;
  readonly receipts: number;
  readonly unresolved: number;
  readonly first: string | null;
  readonly last: string | null;
}

/**
 * `toolgate audit trust-journal [--yes --id ID]`: adopt the journal as this
 * user's, for one made before toolgate recorded the journals it makes, or
 * one of the user's own carried from another machine. Without `--yes` it
 * names the journal by its id and what it holds, and changes nothing; `--yes`
 * records it only when the id is the one shown, so a file swapped since is
 * not adopted.
 */
export async function runAuditTrustJournal(config: ResolvedConfig, options: { readonly yes?: boolean; readonly id?: string }, output: CliOutput, home = homedir()): Promise<void> {
  if (options.yes === true && options.id === undefined) throw new CliError('usage', '--yes adopts the journal you checked: give its id, as toolgate audit trust-journal printed it (--id ID).');
  if (options.yes !== true && options.id !== undefined) throw new CliError('usage', '--id goes with --yes: it names the journal to adopt.');
  const file = config.journal.path;
  if (!existsSync(file)) throw new CliError('usage', `No journal at ${file}.`);
  const summary = await summarise(file);
  const record = journalRecord(config, home);
  const trusted = record.vouches(file, summary.id);
  if (options.yes !== true) {
    output.result({ trusted, journal: file, ...summary }, () =>
      trusted
        ? `${file} (journal ${summary.id}) is this user's already.`
        : [
            `${file} is journal ${summary.id}: ${summary.receipts} receipt(s)${summary.first === null ? '' : `, from ${summary.first} to ${summary.last ?? summary.first}`}, ${summary.unresolved} unresolved claim(s).`,
            'Its receipts would become your history and its open claims would hold your actions back. Check them (toolgate audit verify), and adopt it only if your toolgate wrote it:',
            `toolgate audit trust-journal --yes --id ${summary.id}`,
          ].join('\n'),
    );
    return;
  }
  if (options.id !== summary.id) throw new CliError('usage', `The journal at ${file} is not journal ${options.id ?? ''}: run toolgate audit trust-journal again and check the journal it names.`);
  record.remember(file, summary.id);
  output.result({ trusted: true, journal: file, ...summary }, () => `adopted ${file} (journal ${summary.id}) as this user's: the gateway writes on after its rows from now on`);
}

async function summarise(file: string): Promise<JournalSummary> {
  // Opened as verify opens it, with no anchor and no key: this gives a journal made before ids were kept its id.
  const journal = createSqliteJournal(file, { onUnresolved: () => undefined });
  let id: string | undefined;
  let unresolved: number;
  try {
    id = journal.journalId;
    unresolved = (await journal.unresolved()).length;
  } finally {
    journal.close();
  }
  if (id === undefined) throw new CliError('tool', `${file} has no journal id: it cannot be told from another journal.`);
  const audit = createJournalAudit(file);
  try {
    const at = (entries: readonly { receipt: { startedAt: number } }[]): string | null => (entries[0] === undefined ? null : new Date(entries[0].receipt.startedAt).toISOString());
    return { id, receipts: audit.count(), unresolved, first: at(audit.list({ oldestFirst: true, limit: 1 })), last: at(audit.list({ limit: 1 })) };
  } finally {
    audit.close();
  }
}
