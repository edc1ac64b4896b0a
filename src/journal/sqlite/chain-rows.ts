import type Database from 'better-sqlite3';
import type { ChainHead } from './chain-types.js';
import { hashedFields, holdsForeignValue, rowHashMatches } from './row-hash.js';
import { CHAINED_TABLES, type ChainedTable } from './schema.js';

/** The last row of the chain, whichever table holds it: each table's last row by its own key, then the latest of those. */
export const lastRowSql = (columns: string): string =>
  `SELECT * FROM (${CHAINED_TABLES.map((table) => `SELECT * FROM (SELECT ${columns}, '${table}' AS "table" FROM ${table} ORDER BY seq DESC LIMIT 1)`).join(' UNION ALL ')}) ORDER BY seq DESC LIMIT 1`;

export const CHAIN_HEAD_SQL = `SELECT seq, hash FROM (${lastRowSql('seq, hash')})`;

export type ChainRow = Record<string, unknown> & { seq: number; prev_hash: string; hash: string; key_id?: string | null; signature?: string | null };

/** Each chained table's rows numbered above a given number, in order: prepared once by a reader that walks again and again. */
export type RowsAfter = readonly { readonly table: ChainedTable; readonly select: Database.Statement<[number], ChainRow> }[];

export function rowsAfter(db: Database.Database): RowsAfter {
  return CHAINED_TABLES.map((table) => ({ table, select: db.prepare<[number], ChainRow>(`SELECT * FROM ${table} WHERE seq > ? ORDER BY seq`) }));
}

/** Merge the chained tables' rows numbered above `after` by global `seq` (a k-way merge of sorted iterators). */
export function* chainRows(tables: RowsAfter, after = 0): Generator<{ table: ChainedTable; row: ChainRow }> {
  const cursors = tables.map(({ table, select }) => ({ table, rows: select.iterate(after) }));
  try {
    const heads = cursors.map((cursor) => cursor.rows.next());
    for (;;) {
      let best = -1;
      for (const [index, head] of heads.entries()) {
        if (head.done === true) continue;
        const bestHead = heads[best];
        if (best === -1 || (bestHead?.done !== true && head.value.seq < (bestHead?.value as ChainRow).seq)) best = index;
      }
      if (best === -1) return;
      const cursor = cursors[best] as (typeof cursors)[number];
      yield { table: cursor.table, row: (heads[best] as IteratorYieldResult<ChainRow>).value };
      heads[best] = cursor.rows.next();
    }
  } finally {
    // An open cursor keeps the connection busy: close every one, also on an early exit.
    for (const cursor of cursors) cursor.rows.return?.(undefined);
  }
}

/**
 * What is wrong with `row` as the row after `previous`: another row holds
 * its number, rows are missing between them, it does not link, or it does
 * not hash to its stored hash; undefined when it chains.
 */
export function rowProblem(previous: ChainHead, table: ChainedTable, row: ChainRow): string | undefined {
  // Each table keys its rows by number, not the chain: a row of another table may carry a number already walked.
  if (row.seq <= previous.seq) return `another table holds a row numbered ${row.seq} too: one of the two was added`;
  if (row.seq !== previous.seq + 1) return `rows ${previous.seq + 1}–${row.seq - 1} are missing (deleted)`;
  if (row.prev_hash !== previous.hash) return 'chain break: prev_hash does not match the previous row';
  if (holdsForeignValue(row)) return 'a column holds a value the journal never writes: the row was changed';
  if (!rowHashMatches(row.hash, row.prev_hash, table, row.seq, hashedFields(row))) return 'hash mismatch: the row was changed';
  return undefined;
}

/** Whether `row` holds only values the journal writes and hashes to its stored hash. */
export function hashesAsStored(table: ChainedTable, row: ChainRow): boolean {
  return !holdsForeignValue(row) && rowHashMatches(row.hash, row.prev_hash, table, row.seq, hashedFields(row));
}
