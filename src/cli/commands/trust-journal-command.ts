import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { createJournalAudit, journalFilesProblem, readJournalFile, type ChainHead } from '../../journal/sqlite/index.js';
import { CliError } from '../cli-error.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { journalRecord } from '../runtime/journal-record.js';
import { journalTrust } from '../runtime/vouch-journal.js';

/** The furthest from 1970 a `Date` reaches, either way, in milliseconds. */
const DATE_RANGE_MS = 8.64e15;

/** What a person checks before adopting a journal: its id, and what it holds. */
interface JournalSummary {
  readonly id: string;
  readonly head: ChainHead;
  readonly receipts: number;
  readonly unresolved: number;
  readonly first: string | null;
  readonly last: string | null;
}

/**
 * `toolgate audit trust-journal [--yes --id ID]`: adopt the journal as this
 * user's, for one made before toolgate recorded the journals it makes, or
 * one of the user's own carried from another machine. Without `--yes` it
 * names the journal by its id and what it holds, and changes nothing: it
 * reads the journal through a read-only connection, never folding a log
 * laid beside it into the file. `--yes` records it only when the id is the
 * one shown, so a file swapped since is not adopted, as it ends now.
 */
export function runAuditTrustJournal(config: ResolvedConfig, options: { readonly yes?: boolean; readonly id?: string }, output: CliOutput, home = homedir()): void {
  if (options.yes === true && options.id === undefined) throw new CliError('usage', '--yes adopts the journal you checked: give its id, as toolgate audit trust-journal printed it (--id ID).');
  if (options.yes !== true && options.id !== undefined) throw new CliError('usage', '--id goes with --yes: it names the journal to adopt.');
  const file = config.journal.path;
  if (!existsSync(file)) throw new CliError('usage', `No journal at ${file}.`);
  const summary = summarise(file);
  const trusted = journalTrust(config, home).trusted;
  if (options.yes !== true) {
    output.result({ trusted, journal: file, ...summary }, () =>
      trusted
        ? `${file} (journal ${summary.id}) is this user's already.`
        : [
            `${file} is journal ${summary.id}: ${summary.receipts} receipt(s)${summary.first === null ? '' : `, from ${summary.first} to ${summary.last ?? summary.first}`}, ${summary.unresolved} unresolved claim(s), ${summary.head.seq} rows.`,
            'Its receipts would become your history and its open claims would hold your actions back. Check them (toolgate audit verify), and adopt it only if your toolgate wrote it:',
            `toolgate audit trust-journal --yes --id ${summary.id}`,
          ].join('\n'),
    );
    return;
  }
  if (options.id !== summary.id) throw new CliError('usage', `The journal at ${file} is not journal ${options.id ?? ''}: run toolgate audit trust-journal again and check the journal it names.`);
  // Its last row is what tells it at every open: one that does not hash to its own hash tells nothing.
  if (readJournalFile(file, { heads: [summary.head], walk: false })?.holds !== true) throw new CliError('config', `${file} ends on row #${String(summary.head.seq)}, which does not hash to its stored hash (it was changed): no open could tell this journal, so it is not adopted. \`toolgate audit verify\` names where its chain breaks.`);
  journalRecord(config, home).remember(file, summary.id, summary.head);
  output.result({ trusted: true, journal: file, ...summary }, () => `adopted ${file} (journal ${summary.id}) as this user's: the gateway writes on after its rows from now on`);
}

function summarise(file: string): JournalSummary {
  const problem = journalFilesProblem(file);
  if (problem !== undefined) throw new CliError('config', `${file}: ${problem}. Move it aside: no journal beside which it lies is adopted.`);
  const reading = readJournalFile(file);
  if (reading === undefined) throw new CliError('config', `${file} cannot be read as a journal.`);
  // A journal made by a toolgate from before journals had ids is given one by the first toolgate that opens it.
  if (reading.id === undefined) throw new CliError('config', `${file} has no journal id, so it cannot be told from another journal: open it once with a current toolgate's library (createSqliteJournal), which gives it one.`);
  const audit = createJournalAudit(file);
  try {
    // The file is not this user's yet: a time it holds may be anything.
    const at = (entries: readonly { receipt: { startedAt: unknown } }[]): string | null => {
      const started = entries[0]?.receipt.startedAt;
      return typeof started === 'number' && Math.abs(started) <= DATE_RANGE_MS ? new Date(started).toISOString() : null;
    };
    return { id: reading.id, head: reading.head, receipts: audit.count(), unresolved: audit.openClaims(), first: at(audit.list({ oldestFirst: true, limit: 1 })), last: at(audit.list({ limit: 1 })) };
  } finally {
    audit.close();
  }
}
