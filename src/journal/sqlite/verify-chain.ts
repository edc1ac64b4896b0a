import type Database from 'better-sqlite3';
import type { JournalVerifyResult } from '../../core/index.js';
import type { ChainHead } from './chain-store.js';
import { GENESIS_HASH, hashedFields, hashRow } from './row-hash.js';
import type { ReceiptVerifier } from './receipt-signer.js';
import { CHAINED_TABLES, triggerNames, type ChainedTable } from './schema.js';

export interface VerifyOptions {
  /** A head recorded outside the file earlier: a shorter or different chain means a truncated or rewritten tail. */
  readonly expectedHead?: ChainHead;
  /**
   * Require a signature on every receipt and checkpoint. Default: on when
   * the journal verifies with a key (an attacker who strips signatures and
   * re-links the chain is caught).
   */
  readonly requireSignatures?: boolean;
}

export type SqliteVerifyResult = JournalVerifyResult & { readonly head: ChainHead };

type Row = Record<string, unknown> & { seq: number; prev_hash: string; hash: string; key_id?: string | null; signature?: string | null };

/** Merge the chained tables by global `seq` (a k-way merge of sorted iterators). */
function* chainRows(db: Database.Database): Generator<{ table: ChainedTable; row: Row }> {
  const cursors = CHAINED_TABLES.map((table) => ({ table, rows: db.prepare<[], Row>(`SELECT * FROM ${table} ORDER BY seq`).iterate() }));
  try {
    const heads = cursors.map((cursor) => cursor.rows.next());
    for (;;) {
      let best = -1;
      for (const [index, head] of heads.entries()) {
        if (head.done === true) continue;
        const bestHead = heads[best];
        if (best === -1 || (bestHead?.done !== true && head.value.seq < (bestHead?.value as Row).seq)) best = index;
      }
      if (best === -1) return;
      const cursor = cursors[best] as (typeof cursors)[number];
      yield { table: cursor.table, row: (heads[best] as IteratorYieldResult<Row>).value };
      heads[best] = cursor.rows.next();
    }
  } finally {
    // An open cursor keeps the connection busy: close every one, also on an early exit.
    for (const cursor of cursors) cursor.rows.return?.(undefined);
  }
}

/**
 * Walk the whole chain: sequence numbers contiguous from genesis or from a
 * checkpoint, each `prev_hash` equal to the previous row's hash, each hash
 * recomputed from the row, each signature checked. The first failure is
 * named by table and sequence number.
 */
export function verifyChain(db: Database.Database, options: VerifyOptions & { verifier: ReceiptVerifier | undefined }): SqliteVerifyResult {
  // One read transaction: every cursor sees the same snapshot while other processes append.
  return db.transaction(() => verifySnapshot(db, options))();
}

function verifySnapshot(db: Database.Database, options: VerifyOptions & { verifier: ReceiptVerifier | undefined }): SqliteVerifyResult {
  const verifier = options.verifier;
  const requireSignatures = options.requireSignatures ?? verifier !== undefined;
  const checkpoints = new Map(
    db
      .prepare<[], { through_seq: number; through_hash: string }>(`SELECT through_seq, through_hash FROM checkpoints`)
      .all()
      .map((row) => [row.through_seq, row.through_hash]),
  );
  let rows = 0;
  let previous: ChainHead | undefined;
  const fail = (table: string, id: number, problem: string): SqliteVerifyResult => ({ ok: false, rows, firstBadRow: { table, id, problem }, head: previous ?? { seq: 0, hash: GENESIS_HASH } });
  // Iterators hold the read transaction open; finish them on every exit.
  const walk = chainRows(db);
  try {
    for (const { table, row } of walk) {
      rows += 1;
      const expectedPrev = previous === undefined ? (row.seq === 1 ? GENESIS_HASH : checkpoints.get(row.seq - 1)) : previous.hash;
      if (previous === undefined && expectedPrev === undefined) return fail(table, row.seq, `rows 1–${row.seq - 1} are missing and no checkpoint covers them`);
      if (previous !== undefined && row.seq !== previous.seq + 1) return fail(table, row.seq, `rows ${previous.seq + 1}–${row.seq - 1} are missing (deleted)`);
      if (row.prev_hash !== expectedPrev) return fail(table, row.seq, 'chain break: prev_hash does not match the previous row');
      if (hashRow(row.prev_hash, table, row.seq, hashedFields(row)) !== row.hash) return fail(table, row.seq, 'hash mismatch: the row was changed');
      const signatureProblem = checkSignature(table, row, verifier, requireSignatures);
      if (signatureProblem !== undefined) return fail(table, row.seq, signatureProblem);
      previous = { seq: row.seq, hash: row.hash };
    }
  } finally {
    walk.return(undefined);
  }
  const head = previous ?? { seq: 0, hash: GENESIS_HASH };
  const expected = options.expectedHead;
  if (expected !== undefined && (head.seq < expected.seq || (head.seq === expected.seq && head.hash !== expected.hash))) {
    return { ok: false, rows, firstBadRow: { table: 'chain', id: expected.seq, problem: 'the chain is shorter than, or differs from, the anchored head (rows deleted from the tail)' }, head };
  }
  const present = new Set(db.prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'trigger'`).all().map((row) => row.name));
  const missing = triggerNames().find((name) => !present.has(name));
  if (missing !== undefined) return { ok: false, rows, firstBadRow: { table: 'schema', id: 0, problem: `append-only trigger ${missing} is missing` }, head };
  return { ok: true, rows, head };
}

function checkSignature(table: ChainedTable, row: Row, verifier: ReceiptVerifier | undefined, required: boolean): string | undefined {
  if (table !== 'receipts' && table !== 'checkpoints') return undefined;
  const signature = row.signature ?? undefined;
  if (signature === undefined) return required ? 'signature missing' : undefined;
  if (verifier === undefined) return undefined;
  if (row.key_id !== verifier.keyId) return 'signed with an unknown key';
  return verifier.verify(row.hash, signature) ? undefined : 'signature mismatch';
}
