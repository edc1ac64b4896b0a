import { lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import { readJournalId, type SqliteJournal } from '../../journal/sqlite/index.js';
import { ConfigurationError } from '../../core/internal.js';
import { CliError } from '../cli-error.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { stateRecord, type StateRecord } from './state-record.js';

/**
 * A workspace can arrive with a journal its author wrote: an archive
 * unpacked, a folder copied from another machine, where no git tracks it.
 * Its receipts would pass for this user's history in the audit trail and the
 * console, the claims its author left open would hold this user's actions
 * back, and the gateway would write on after the author's rows. So a journal
 * is used only when this user's toolgate made it, or the user adopted it
 * (`toolgate audit trust-journal`): `home`'s record keeps each journal's id
 * (`meta.journal_id`, random, made with the file), wherever it has moved.
 */
export function journalRecord(config: ResolvedConfig, home = homedir()): StateRecord {
  return stateRecord(config, home, 'journals.json');
}

/**
 * Open the configuration's journal with `open`, for a command that writes
 * it: one already there must be this user's (refused before anything is
 * opened, and the one opened must be the one asked about); one there is not
 * yet is made, and recorded, while no other toolgate of this user asks.
 */
export function openVouchedJournal(config: ResolvedConfig, open: () => SqliteJournal, home = homedir()): SqliteJournal {
  const file = config.journal.path;
  const record = journalRecord(config, home);
  if (isThere(file)) return openKnown(file, record, open);
  return record.exclusively(() => {
    // Made by another toolgate of this user since: recorded already, in here.
    if (isThere(file)) return openKnown(file, record, open);
    const journal = open();
    try {
      const id = journal.journalId;
      if (id === undefined) throw new CliError('config', `${file} lost its id as it was made: start again.`);
      record.remember(file, id);
      return journal;
    } catch (error) {
      journal.close();
      throw error;
    }
  });
}

/** Throw unless the journal at the configuration's path, which is there, is this user's; its id when it is. */
export function refuseUnvouchedJournal(config: ResolvedConfig, home = homedir()): string {
  return vouchedIdOf(config.journal.path, journalRecord(config, home));
}

function openKnown(file: string, record: StateRecord, open: () => SqliteJournal): SqliteJournal {
  const id = vouchedIdOf(file, record);
  const journal = open();
  if (journal.journalId !== id) {
    journal.close();
    throw new CliError('config', `${file} changed while it was opened: start again.`);
  }
  return journal;
}

function vouchedIdOf(file: string, record: StateRecord): string {
  let id: string | undefined;
  try {
    id = readJournalId(file);
    if (id !== undefined && record.vouches(file, id)) return id;
    // A toolgate of this user may be making it this moment, and records it before it lets another ask: ask again then.
    id = record.exclusively(() => readJournalId(file));
  } catch (error) {
    if (error instanceof ConfigurationError) throw new CliError('config', `${file} ${error.problemText}.`, { cause: error });
    throw error;
  }
  if (id !== undefined && record.vouches(file, id)) return id;
  throw notThisUsers(file, id);
}

function notThisUsers(file: string, id: string | undefined): CliError {
  return new CliError(
    'config',
    `${file}${id === undefined ? '' : ` (journal ${id})`} was not made by this user's toolgate: a workspace can arrive with a journal its author wrote (an archive, a copied folder), whose receipts would pass for your history and whose open claims would hold your actions back. Move the journal aside with its anchor and start again, or, if your toolgate wrote it, adopt it with \`toolgate audit trust-journal\`.`,
  );
}

function isThere(file: string): boolean {
  return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
}
