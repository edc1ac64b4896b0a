import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { anchorPathFor, type SqliteJournal } from '../../journal/sqlite/index.js';
import { SIGNING_KEY_FILE } from '../../journal/sqlite/receipt-signer.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { openVouchedJournal } from './vouch-journal.js';

/** Where the journal's signing key is kept: `keys/` beside the journal. */
export const keyFileOf = (journalPath: string): string => join(dirname(journalPath), 'keys', SIGNING_KEY_FILE);

/** The files a journal at `journalPath` keeps: the database, SQLite's files beside it, its anchor and its signing key. */
export const journalFilesOf = (journalPath: string): string[] => [journalPath, `${journalPath}-wal`, `${journalPath}-shm`, `${journalPath}-journal`, anchorPathFor(journalPath), keyFileOf(journalPath)];

/**
 * Open the workspace's journal for a command that reads what it recorded
 * (the unresolved claims, a run to replay): with the signing key when
 * `journal.sign` is on and the key is there, so the journal acts only on
 * rows the key vouches for (a receipt changed in the file is not replayed
 * as the call's answer), and never a key made now, which would vouch for
 * rows nobody checked. Only a journal this user's toolgate made, or the user
 * adopted (`openVouchedJournal`).
 */
export function openJournalToRead(config: ResolvedConfig): SqliteJournal {
  const keyed = config.journal.sign && existsSync(keyFileOf(config.journal.path));
  return openVouchedJournal(config, { onUnresolved: () => undefined, ...(keyed ? { sign: true } : {}) });
}
