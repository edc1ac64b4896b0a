/** What a writer with the journal file but not the signing key can append: rows correctly linked and hashed, unsigned. */
import type Database from 'better-sqlite3';
import type { ChainHead } from '../chain-store.js';
import { GENESIS_HASH, hashRow } from '../row-hash.js';
import { CHAINED_TABLES, type ChainedTable } from '../schema.js';

export function headOf(db: Database.Database): ChainHead {
  let head: ChainHead = { seq: 0, hash: GENESIS_HASH };
  for (const table of CHAINED_TABLES) {
    const row = db.prepare<[], ChainHead>(`SELECT seq, hash FROM ${table} ORDER BY seq DESC LIMIT 1`).get();
    if (row !== undefined && row.seq > head.seq) head = row;
  }
  return head;
}

/** Append an unsigned row, correctly linked and hashed: all a writer without the key can make. */
export function appendForged(db: Database.Database, table: ChainedTable, fields: Record<string, string | number | null>, after: ChainHead = headOf(db)): ChainHead {
  const seq = after.seq + 1;
  const hash = hashRow(after.hash, table, seq, fields);
  const row = { ...fields, seq, prev_hash: after.hash, hash };
  db.prepare(`INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row).map((column) => `@${column}`).join(', ')})`).run(row);
  return { seq, hash };
}
