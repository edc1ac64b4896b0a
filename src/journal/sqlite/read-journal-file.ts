import { lstatSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ConfigurationError } from '../../core/internal.js';
import { CHAIN_HEAD_SQL, hashesAsStored, type ChainRow } from './chain-rows.js';
import type { ChainHead } from './chain-types.js';
import { GENESIS_HASH } from './row-hash.js';
import { CHAINED_TABLES, journalIdOf } from './schema.js';
import { verifyChain } from './verify-chain.js';

/** What a journal file holds, read without opening it to write. */
export interface JournalFileReading {
  /** Its id (`meta.journal_id`); undefined when it holds none. */
  readonly id: string | undefined;
  /** The last row of its chain; row 0 and the genesis hash when it holds none. */
  readonly head: ChainHead;
  /** With `expected`: whether it holds one of those rows as it was (see `readJournalFile`). */
  readonly holds?: boolean;
}

/**
 * Read the journal file at `path` through a read-only connection that
 * changes nothing in it (its write-ahead log included, as any reader sees
 * it): a caller asks whose the journal is before it opens it to write.
 * With `expected`, rows recorded outside the file earlier: whether the
 * chain still holds one of them, hashing to its hash as stored (a file put
 * in its place cannot, without that row's text), and with `walk`, whether
 * the whole chain links, walked once (pages of the file replaced around the
 * row, by a log laid beside it, break the links). Undefined when the file cannot be
 * read as a journal (one being made this moment, or no database at all).
 * A link, a named pipe or a device is refused, as the journal refuses it: a
 * pipe would hold the read for good.
 */
export function readJournalFile(path: string, expected?: { readonly heads: readonly ChainHead[]; readonly walk: boolean }): JournalFileReading | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  if (!stats.isFile()) throw new ConfigurationError('path', 'must be a regular file, not a link');
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const opened = db;
    // One read transaction: the id, the head and the rows come from the same snapshot while a writer appends.
    return opened.transaction(() => {
      const id = journalIdOf(opened);
      const head = opened.prepare<[], ChainHead>(CHAIN_HEAD_SQL).get() ?? { seq: 0, hash: GENESIS_HASH };
      // Walked, the chain links whole: a row up to the one held that is not the one it links to breaks it.
      return expected === undefined ? { id, head } : { id, head, holds: expected.heads.some((head) => holdsRow(opened, head)) && (!expected.walk || verifyChain(opened, { verifier: undefined, requireSignatures: false }).ok) };
    })();
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

/**
 * Whether the chain holds row `head.seq` with hash `head.hash`, hashing to it
 * as stored; the empty chain's head is held by every file. A checkpoint
 * that names the row is not the row: anyone who read the pair in an anchor
 * can write one.
 */
function holdsRow(db: Database.Database, head: ChainHead): boolean {
  if (head.seq === 0) return true;
  for (const table of CHAINED_TABLES) {
    const row = db.prepare<[number], ChainRow>(`SELECT * FROM ${table} WHERE seq = ?`).get(head.seq);
    if (row !== undefined) return row.hash === head.hash && hashesAsStored(table, row);
  }
  return false;
}
