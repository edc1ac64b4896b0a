import { lstatSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ConfigurationError } from '../../core/internal.js';
import { journalIdOf } from './schema.js';

/**
 * The id (`meta.journal_id`) of the journal file at `path`, read through a
 * read-only connection that changes nothing in it: a caller asks whose the
 * journal is before it opens it to write. Undefined when the file holds no
 * id, or cannot be read as a journal (one being made this moment, or no
 * database at all). A link, a named pipe or a device is refused, as the
 * journal refuses it: a pipe would hold the read for good.
 */
export function readJournalId(path: string): string | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  if (!stats.isFile()) throw new ConfigurationError('path', 'must be a regular file, not a link');
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    return journalIdOf(db);
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
