import type Database from 'better-sqlite3';
import type { ReceiptVerifier } from './receipt-signer.js';
import { hashedFields, holdsForeignValue, rowHashMatches } from './row-hash.js';

/** The tables a toolgate of schema 1 signed, every row of them it wrote with its key. */
const SIGNED_BY_SCHEMA_1 = ['receipts', 'checkpoints'] as const;

type Row = Record<string, unknown> & { seq: number; prev_hash: string; hash: string; key_id: unknown; signature: unknown };

/**
 * Whether the rows after the last row `verifier`'s key signed are what a
 * toolgate of schema 1 left unsigned: it signed each receipt and checkpoint
 * it wrote, and no event or claim. `user_version` is the file's own word,
 * and a writer without the key can set it to 1 and give the tables of a
 * journal that never signed an event or claim the shape schema 1 gave
 * them; the rows past the last signature then are all that writer can add.
 * So a file none of whose rows the key signed (an unsigned journal, or one
 * emptied and written again) is no such history, nor is one with a receipt
 * or checkpoint after that signature (schema 1 would have signed it).
 */
export function isSchema1History(db: Database.Database, verifier: ReceiptVerifier): boolean {
  let last: { table: (typeof SIGNED_BY_SCHEMA_1)[number]; row: Row } | undefined;
  for (const table of SIGNED_BY_SCHEMA_1) {
    const row = db.prepare<[], Row>(`SELECT * FROM ${table} WHERE signature IS NOT NULL ORDER BY seq DESC LIMIT 1`).get();
    if (row !== undefined && (last === undefined || row.seq > last.row.seq)) last = { table, row };
  }
  if (last === undefined) return false;
  const { table, row } = last;
  // A stored hash and signature copied from another signed row verify: the row must also hash to them.
  const signed =
    row.key_id === verifier.keyId &&
    typeof row.signature === 'string' &&
    verifier.verify(row.hash, row.signature) &&
    !holdsForeignValue(row) &&
    rowHashMatches(row.hash, row.prev_hash, table, row.seq, hashedFields(row));
  return signed && SIGNED_BY_SCHEMA_1.every((signedTable) => db.prepare(`SELECT 1 FROM ${signedTable} WHERE seq > ? LIMIT 1`).get(row.seq) === undefined);
}
