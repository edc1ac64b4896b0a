import { canonicalJson, ConfigurationError } from '../../core/internal.js';
import type { ChainHead, ChainStore } from './chain-store.js';
import type { OpenClaims } from './open-claims.js';
import type { ReceiptVerifier } from './receipt-signer.js';
import { sweepBlobs } from './result-blobs.js';
import { appendOnlyTriggerSql, CHAINED_TABLES } from './schema.js';
import { verifyChain } from './verify-chain.js';

export interface CompactOptions {
  /** Drop history older than this time (ms since the epoch). Never passes the oldest unresolved claim. */
  readonly before: number;
  /**
   * Compaction first verifies the chain it would drop, as `verify()` does; this
   * is `verify()`'s `requireSignatures` for that walk (default: on with a key).
   */
  readonly requireSignatures?: boolean;
  /**
   * The latest head anchored outside the file: checked before the rows that
   * carry it are dropped. After compaction a signed checkpoint vouches for
   * anchors inside the dropped prefix, so this is the last chance to compare.
   */
  readonly expectedHead?: ChainHead;
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
 * checkpoint. A signed checkpoint also vouches for anchored heads inside the
 * dropped prefix, so the prefix must verify first: the walk runs in a read
 * snapshot, without the write lock (a long walk must not stall writers); the
 * write transaction then finds the verified head unchanged (its hash pins every
 * row before it) and drops nothing past it. The write is one immediate
 * transaction: the append-only triggers are dropped and recreated inside it,
 * so no other writer ever sees them absent. Compaction also ends idempotent
 * replay for the dropped receipts.
 */
export function compactJournal(store: ChainStore, openClaims: OpenClaims, options: CompactOptions, verifier: ReceiptVerifier | undefined): CompactResult {
  if (!Number.isFinite(options.before)) throw new ConfigurationError('compact.before', 'must be a time in milliseconds');
  const db = store.db;
  // Nothing old enough: no walk. Retention asks hourly, and the walk costs about 0.1 ms a signed row.
  const anyOld = CHAINED_TABLES.some((table) => db.prepare<[number], { found: number }>(`SELECT 1 AS found FROM ${table} WHERE at < ? LIMIT 1`).get(options.before) !== undefined);
  if (!anyOld) return { removed: {}, throughSeq: 0 };
  const verified = verifyChain(db, {
    verifier,
    ...(options.requireSignatures === undefined ? {} : { requireSignatures: options.requireSignatures }),
    ...(options.expectedHead === undefined ? {} : { expectedHead: options.expectedHead }),
  });
  if (!verified.ok) {
    const bad = verified.firstBadRow;
    throw new ConfigurationError('journal', `cannot be compacted: it does not verify (${bad === undefined ? 'chain broken' : `${bad.table} #${bad.id}: ${bad.problem}`}); run verify()`);
  }
  return store.write(() => {
    store.pinHead();
    if (verified.head.seq === 0) return { removed: {}, throughSeq: 0 };
    const stillThere = CHAINED_TABLES.map((table) => db.prepare<[number], { hash: string }>(`SELECT hash FROM ${table} WHERE seq = ?`).get(verified.head.seq)).find((row) => row !== undefined);
    if (stillThere?.hash !== verified.head.hash) throw new ConfigurationError('journal', 'changed while it was being verified for compaction; run compact() again');
    const lastOld = Math.min(
      verified.head.seq,
      CHAINED_TABLES.map((table) => db.prepare<[number], { seq: number | null }>(`SELECT max(seq) AS seq FROM ${table} WHERE at < ?`).get(options.before)?.seq ?? 0).reduce(
        (left, right) => Math.max(left, right),
        0,
      ),
    );
    let oldestOpen = Number.POSITIVE_INFINITY;
    for (const claim of openClaims.refresh().values()) oldestOpen = Math.min(oldestOpen, claim.seq);
    const throughSeq = Math.min(lastOld, oldestOpen - 1);
    if (throughSeq <= 0) return { removed: {}, throughSeq: 0 };
    const through = CHAINED_TABLES.map((table) => db.prepare<[number], { hash: string }>(`SELECT hash FROM ${table} WHERE seq = ?`).get(throughSeq)).find((row) => row !== undefined);
    if (through === undefined) throw new ConfigurationError('journal', 'cannot be compacted: the chain has a gap; run verify()');
    const removed: Record<string, number> = {};
    for (const table of CHAINED_TABLES) {
      db.exec(`DROP TRIGGER IF EXISTS ${table}_no_delete`);
      removed[table] = db.prepare(`DELETE FROM ${table} WHERE seq <= ?`).run(throughSeq).changes;
      for (const statement of appendOnlyTriggerSql(table)) db.exec(statement);
    }
    db.prepare(`DELETE FROM receipt_keys WHERE seq <= ?`).run(throughSeq);
    // The long texts only the dropped receipts named go with them.
    sweepBlobs(db);
    store.append('checkpoints', { at: Date.now(), through_seq: throughSeq, through_hash: through.hash, body: canonicalJson({ removed }) });
    return { removed, throughSeq };
  });
}
