import type Database from 'better-sqlite3';
import { GENESIS_HASH, hashRow, type RowFields } from './row-hash.js';
import type { ReceiptSigner } from './receipt-signer.js';
import { CHAINED_TABLES, HASHED_COLUMNS, type ChainedTable } from './schema.js';

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** Tables whose rows are signed when a signer is configured. */
const SIGNED: ReadonlySet<ChainedTable> = new Set(['receipts', 'checkpoints']);

/**
 * The one writer of chained rows. `append` must run inside `write`, an
 * immediate transaction: the head is read and the next row linked to it
 * under SQLite's write lock, so concurrent processes serialize and no row
 * is lost or forked.
 */
export class ChainStore {
  readonly db: Database.Database;
  readonly signer: ReceiptSigner | undefined;
  readonly #head: Database.Statement<[], ChainHead>;
  readonly #inserts = new Map<string, Database.Statement>();

  constructor(db: Database.Database, signer: ReceiptSigner | undefined) {
    this.db = db;
    this.signer = signer;
    this.#head = db.prepare<[], ChainHead>(
      `SELECT seq, hash FROM (${CHAINED_TABLES.map((table) => `SELECT * FROM (SELECT seq, hash FROM ${table} ORDER BY seq DESC LIMIT 1)`).join(' UNION ALL ')}) ORDER BY seq DESC LIMIT 1`,
    );
  }

  head(): ChainHead {
    return this.#head.get() ?? { seq: 0, hash: GENESIS_HASH };
  }

  /** Run `work` in an immediate (write-locking) transaction. */
  write<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  append(table: ChainedTable, fields: RowFields): ChainHead {
    const previous = this.head();
    const seq = previous.seq + 1;
    const signed = this.signer !== undefined && SIGNED.has(table);
    const hashed: Record<string, string | number | null> = {};
    for (const column of HASHED_COLUMNS[table]) hashed[column] = column === 'key_id' ? (signed ? this.signer.keyId : null) : (fields[column] ?? null);
    const hash = hashRow(previous.hash, table, seq, hashed);
    const row = { ...hashed, seq, prev_hash: previous.hash, hash, ...(signed ? { signature: this.signer.sign(hash) } : {}) };
    // Column order is fixed per table and signing state, so the statement cache stays tiny.
    this.#insert(table, Object.keys(row)).run(row);
    return { seq, hash };
  }

  #insert(table: ChainedTable, columns: readonly string[]): Database.Statement {
    const cacheKey = `${table}:${columns.join(',')}`;
    let statement = this.#inserts.get(cacheKey);
    if (statement === undefined) {
      statement = this.db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`);
      this.#inserts.set(cacheKey, statement);
    }
    return statement;
  }
}
