import { canonicalJson, ConfigurationError } from '../../core/index.js';
import type { ChainStore } from './chain-store.js';
import { appendOnlyTriggerSql, CHAINED_TABLES } from './schema.js';

export interface CompactOptions {
  /** Drop history older than this time (ms since the epoch). Never passes the oldest unresolved claim. */
  readonly before: number;
}

export interface CompactResult {
  /** Rows removed, by table. */
  readonly removed: Readonly<Record<string, number>>;
  /** The last removed sequence number (0 when nothing was removed). */
  readonly throughSeq: number;
}

/**
 * Drop a prefix of the chain and append a checkpoint row that names the
 * last dropped row and its hash, so `verify()` can start the walk from the
 * checkpoint. Runs in one immediate transaction: the append-only triggers are
 * dropped and recreated inside it, so no other writer ever sees them absent.
 * Compaction also ends idempotent replay for the dropped receipts.
 */
export function compactJournal(store: ChainStore, options: CompactOptions): CompactResult {
  if (!Number.isFinite(options.before)) throw new ConfigurationError('compact.before', 'must be a time in milliseconds');
  const db = store.db;
  return store.write(() => {
    store.pinHead();
    const lastOld = CHAINED_TABLES.map(
      (table) => db.prepare<[number], { seq: number | null }>(`SELECT max(seq) AS seq FROM ${table} WHERE at < ?`).get(options.before)?.seq ?? 0,
    ).reduce((left, right) => Math.max(left, right), 0);
    const oldestOpen =
      db
        .prepare<[], { seq: number | null }>(
          `SELECT min(c.seq) AS seq FROM claims c WHERE c.state = 'claimed' AND NOT EXISTS (SELECT 1 FROM claims d WHERE d.key = c.key AND d.seq > c.seq)`,
        )
        .get()?.seq ?? undefined;
    const throughSeq = oldestOpen === undefined ? lastOld : Math.min(lastOld, oldestOpen - 1);
    if (throughSeq <= 0) return { removed: {}, throughSeq: 0 };
    const through = CHAINED_TABLES.map((table) => db.prepare<[number], { hash: string }>(`SELECT hash FROM ${table} WHERE seq = ?`).get(throughSeq)).find((row) => row !== undefined);
    if (through === undefined) throw new ConfigurationError('journal', 'cannot be compacted: the chain has a gap; run verify()');
    const removed: Record<string, number> = {};
    for (const table of CHAINED_TABLES) {
      db.exec(`DROP TRIGGER IF EXISTS ${table}_no_delete`);
      removed[table] = db.prepare(`DELETE FROM ${table} WHERE seq <= ?`).run(throughSeq).changes;
      for (const statement of appendOnlyTriggerSql(table)) db.exec(statement);
    }
    store.append('checkpoints', { at: Date.now(), through_seq: throughSeq, through_hash: through.hash, body: canonicalJson({ removed }) });
    return { removed, throughSeq };
  });
}
