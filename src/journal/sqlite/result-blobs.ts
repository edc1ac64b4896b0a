import type Database from 'better-sqlite3';
import type { JournalSettleInput, RecordedResult } from '../../core/internal.js';
import { nodeSha256 } from '../../node/digest/node-sha256.js';
import { decodeStoredResult, encodeStoredResult, MAY_NAME_BLOBS_SQL, namedBlobs, type StoredResult } from './encode-journal-body.js';

/**
 * The long texts of recorded results (`encodeStoredResult`), each stored
 * once by its SHA-256 in the `blobs` table, beside the receipts whose bodies
 * name it. A blob is not chained: the digest in the chained body vouches for
 * it, and a text that no longer hashes to its digest, or is gone, reads as
 * missing. A compaction removes the blobs no receipt left names (`sweepBlobs`).
 */
export class ResultBlobs {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[string, string]>;
  readonly #select: Database.Statement<[string], string>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#insert = db.prepare(`INSERT OR IGNORE INTO blobs (digest, text) VALUES (?, ?)`);
    this.#select = db.prepare<[string], string>(`SELECT text FROM blobs WHERE digest = ?`).pluck();
  }

  /** A result as it is stored: its long texts aside, named by their digest (`encodeStoredResult`). */
  stored(input: JournalSettleInput, maxValueBytes: number): StoredResult {
    return encodeStoredResult(input, maxValueBytes, nodeSha256);
  }

  /** A stored receipt body read back whole, its long texts taken from the file. */
  recorded(body: string): RecordedResult {
    return decodeStoredResult(body, (digest) => this.text(digest));
  }

  /**
   * The bodies `bodies` reads, each read back whole, in one read with the
   * texts they name: a compaction elsewhere between the two sweeps the texts
   * of receipts just read, which then read as values not kept.
   */
  recordedAll(bodies: () => readonly string[]): RecordedResult[] {
    const read = (): RecordedResult[] => bodies().map((body) => this.recorded(body));
    return this.#db.inTransaction ? read() : this.#db.transaction(read).deferred();
  }

  /** Store each text not stored yet; inside the transaction that appends the receipt naming them. */
  put(blobs: ReadonlyMap<string, string>): void {
    for (const [digest, text] of blobs) this.#insert.run(digest, text);
  }

  /** The text stored under `digest`, when it still hashes to it. */
  text(digest: string): string | undefined {
    const text = this.#select.get(digest);
    return typeof text === 'string' && nodeSha256(text) === digest ? text : undefined;
  }
}

/** Remove the stored texts no receipt names any more (a compaction's last step); returns how many. */
export function sweepBlobs(db: Database.Database): number {
  const named = new Set<string>();
  for (const row of namingReceipts(db).iterate()) for (const digest of namedBlobs(row.body)) named.add(digest);
  const remove = db.prepare<[string]>(`DELETE FROM blobs WHERE digest = ?`);
  let removed = 0;
  for (const digest of db.prepare<[], string>(`SELECT digest FROM blobs`).pluck().all()) if (!named.has(digest)) removed += remove.run(digest).changes;
  return removed;
}

/**
 * `verify()`'s check of the stored texts: each still hashes to its digest,
 * and each a receipt names is there. The chain vouches for the digests, not
 * for the texts: without this, a text changed in the file would be found
 * only when its recording is read again.
 */
export function blobsProblem(db: Database.Database): { table: string; id: number; problem: string } | undefined {
  const changed = db.prepare<[], { id: number; digest: string; text: unknown }>(`SELECT rowid AS id, digest, text FROM blobs`);
  for (const row of changed.iterate()) {
    if (typeof row.text !== 'string' || nodeSha256(row.text) !== row.digest) return { table: 'blobs', id: row.id, problem: 'a stored text no longer matches its digest: the recording that names it was changed' };
  }
  const stored = db.prepare<[string], number>(`SELECT 1 FROM blobs WHERE digest = ?`).pluck();
  let missing: number | undefined;
  for (const row of namingReceipts(db).iterate()) {
    if (namedBlobs(row.body).some((digest) => stored.get(digest) === undefined)) {
      missing = row.seq;
      break;
    }
  }
  return missing === undefined ? undefined : { table: 'receipts', id: missing, problem: 'names a stored text the file no longer holds' };
}

/** The receipts whose bodies may name a stored text (`MAY_NAME_BLOBS_SQL`), in order; `namedBlobs` reads which. */
function namingReceipts(db: Database.Database): Database.Statement<[], { seq: number; body: string }> {
  return db.prepare<[], { seq: number; body: string }>(`SELECT seq, body FROM receipts WHERE ${MAY_NAME_BLOBS_SQL} ORDER BY seq`);
}
