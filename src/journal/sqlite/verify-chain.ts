import type Database from 'better-sqlite3';
import type { JournalVerifyResult } from '../../core/internal.js';
import type { ChainHead } from './chain-store.js';
import { chainRows, rowProblem, rowsAfter, type ChainRow } from './chain-rows.js';
import { GENESIS_HASH } from './row-hash.js';
import { receiptKeysProblem } from './receipt-keys.js';
import { blobsProblem } from './result-blobs.js';
import { isSeal, keyMade, type ReceiptVerifier } from './receipt-signer.js';
import { appendOnlyTriggers, CHAINED_TABLES, normaliseSchemaSql, type ChainedTable } from './schema.js';

export interface VerifyOptions {
  /**
   * A head recorded outside the file earlier (`journal.head()`). The row at
   * its position must still carry its hash: a shorter chain means a truncated
   * tail, a different hash a rewritten chain, also when rows were appended
   * since. Once compaction has removed that row, only a signed checkpoint
   * that covers the position vouches for it.
   */
  readonly expectedHead?: ChainHead;
  /**
   * Require every row to be signed or covered by a signature: a row that
   * names the key (`key_id`) carries its signature, and one that names none
   * (written before the last row of its commit, which alone is signed) is
   * covered by the next signed row. Default: on when the journal verifies
   * with a key (an attacker who strips signatures and re-links the chain, or
   * appends rows past the last signature, is caught). Events and claims
   * written before schema 2, when only receipts and checkpoints were signed,
   * pass unsigned the same way, while a later signed row covers them.
   */
  readonly requireSignatures?: boolean;
}

export type SqliteVerifyResult = JournalVerifyResult & {
  readonly head: ChainHead;
  /** Set when the walk failed on `expectedHead`: the chain is shorter, differs at that row, or compaction left it unvouched. */
  readonly anchored?: 'shorter' | 'differs' | 'unvouched';
};

/**
 * Walk the whole chain: sequence numbers contiguous from genesis or from a
 * checkpoint, each `prev_hash` equal to the previous row's hash, each hash
 * recomputed from the row, each signature checked, the anchored head (when
 * given) found unchanged, the append-only triggers exactly as the journal
 * creates them, the receipt key index true to the receipts. The first
 * failure is named by table and sequence number.
 */
export function verifyChain(db: Database.Database, options: VerifyOptions & { verifier: ReceiptVerifier | undefined }): SqliteVerifyResult {
  // One read transaction: every cursor sees the same snapshot while other processes append.
  return db.transaction(() => verifySnapshot(db, options))();
}

type BadRow = NonNullable<JournalVerifyResult['firstBadRow']>;

function verifySnapshot(db: Database.Database, options: VerifyOptions & { verifier: ReceiptVerifier | undefined }): SqliteVerifyResult {
  const verifier = options.verifier;
  const requireSignatures = options.requireSignatures ?? verifier !== undefined;
  const expected = options.expectedHead;
  const checkpoints = new Map(
    db
      .prepare<[], { through_seq: number; through_hash: string }>(`SELECT through_seq, through_hash FROM checkpoints`)
      .all()
      .map((row) => [row.through_seq, row.through_hash]),
  );
  let rows = 0;
  let previous: ChainHead | undefined;
  /** Whether the row at the anchored position was walked (and matched). */
  let anchorSeen = false;
  /** The `through_seq` of every checkpoint whose signature the trusted key verified. */
  const signedCheckpoints: number[] = [];
  /** The first unsigned row no later signed row covers yet, whether it is a schema 1 event or claim, and whether it is sealed. */
  let uncovered: { table: ChainedTable; seq: number; legacy: boolean; sealed: boolean } | undefined;
  /** Set at the first signed event or claim: from there on the writer signed every commit. */
  let everyRowSigned = false;
  const result = (bad: BadRow | undefined, anchored?: SqliteVerifyResult['anchored']): SqliteVerifyResult => {
    const head = previous ?? { seq: 0, hash: GENESIS_HASH };
    return bad === undefined ? { ok: true, rows, head } : { ok: false, rows, firstBadRow: bad, head, ...(anchored === undefined ? {} : { anchored }) };
  };
  const fail = (table: string, id: number, problem: string, anchored?: SqliteVerifyResult['anchored']): SqliteVerifyResult => result({ table, id, problem }, anchored);
  // Iterators hold the read transaction open; finish them on every exit.
  const walk = chainRows(rowsAfter(db));
  try {
    for (const { table, row } of walk) {
      rows += 1;
      const expectedPrev = previous === undefined ? (row.seq === 1 ? GENESIS_HASH : checkpoints.get(row.seq - 1)) : previous.hash;
      if (expectedPrev === undefined) return fail(table, row.seq, `rows 1–${row.seq - 1} are missing and no checkpoint covers them`);
      const problem = rowProblem(previous ?? { seq: row.seq - 1, hash: expectedPrev }, table, row);
      if (problem !== undefined) return fail(table, row.seq, problem);
      const signature = checkSignature(row, verifier);
      // Past a row no signature covers yet, a bad signature leaves that row unvouched: it is the first bad row.
      if (signature.problem !== undefined) return uncovered?.legacy === false ? fail(uncovered.table, uncovered.seq, 'signature missing') : fail(table, row.seq, signature.problem);
      if (signature.signed) {
        // A signed hash covers `prev_hash`, so it vouches for every row before it.
        uncovered = undefined;
        if (table === 'events' || table === 'claims') everyRowSigned = true;
        if (table === 'checkpoints' && verifier !== undefined) signedCheckpoints.push(Number(row.through_seq));
      } else if (requireSignatures) {
        // A row that names the key carries its signature. One that names none is covered by the next signed row:
        // only the last row of a commit is signed. Schema 1 signed only receipts and checkpoints: an older unsigned
        // event or claim is legacy, before the first signed event or claim.
        // A sealed row names the key too, and is covered the same way for a verifier that cannot check its seal.
        if ((row.key_id ?? null) !== null && !signature.sealed) return fail(table, row.seq, 'signature missing');
        uncovered ??= { table, seq: row.seq, legacy: (table === 'events' || table === 'claims') && !everyRowSigned, sealed: signature.sealed === true };
      }
      if (expected !== undefined && row.seq === expected.seq) {
        if (row.hash !== expected.hash) return fail(table, row.seq, 'differs from the anchored head: the chain was rewritten at or before this row', 'differs');
        anchorSeen = true;
      }
      previous = { seq: row.seq, hash: row.hash };
    }
  } finally {
    walk.return(undefined);
  }
  if (uncovered !== undefined) return fail(uncovered.table, uncovered.seq, uncoveredProblem(uncovered));
  if (expected !== undefined && !anchorSeen) {
    const problem = anchorProblem(expected, previous, checkpoints, signedCheckpoints);
    if (problem !== undefined) return fail('chain', expected.seq, problem.problem, problem.kind);
  }
  return result(schemaProblem(db));
}

/** The schema checks of `verify()`: the append-only triggers, columns no hash covers, the receipt key index, the stored texts. */
export function schemaProblem(db: Database.Database): BadRow | undefined {
  return triggerProblem(db) ?? columnProblem(db) ?? receiptKeysProblem(db) ?? blobsProblem(db);
}

/**
 * Column names whose values a row's hash never covers: a row read as an
 * object keeps no `__proto__` of its own (the value is dropped), and the
 * canonical row gives `table` the row's table, whatever the column holds.
 * A chained table with such a column (one added with ALTER TABLE) could
 * carry anything there with every hash intact.
 */
const UNHASHABLE_COLUMNS = new Set(['__proto__', 'table']);

function columnProblem(db: Database.Database): BadRow | undefined {
  for (const table of CHAINED_TABLES) {
    const column = db
      .prepare(`SELECT * FROM ${table} LIMIT 0`)
      .columns()
      .find((found) => UNHASHABLE_COLUMNS.has(found.name));
    if (column !== undefined) return { table: 'schema', id: 0, problem: `${table} has a column named ${column.name}, whose values no hash covers` };
  }
  return undefined;
}

/**
 * The anchored position was not walked: it is past the head (a truncated
 * tail), or compaction removed it. A removed position is vouched for only by
 * a checkpoint the trusted key signed: an unsigned checkpoint, and the chain
 * after it, are what a writer without the key can fabricate.
 */
function anchorProblem(
  expected: ChainHead,
  walkedHead: ChainHead | undefined,
  checkpoints: ReadonlyMap<number, string>,
  signedCheckpoints: readonly number[],
): { kind: NonNullable<SqliteVerifyResult['anchored']>; problem: string } | undefined {
  if (expected.seq === 0) return expected.hash === GENESIS_HASH ? undefined : { kind: 'differs', problem: 'differs from the anchored head: the chain was rewritten at or before this row' };
  if (expected.seq > (walkedHead?.seq ?? 0)) return { kind: 'shorter', problem: 'the chain is shorter than the anchored head (rows deleted from the tail)' };
  // A checkpoint that names this very position records the hash the row had when it was dropped.
  const recorded = checkpoints.get(expected.seq);
  if (recorded !== undefined && recorded !== expected.hash) return { kind: 'differs', problem: 'differs from the anchored head: compaction recorded another hash at this position' };
  if (signedCheckpoints.some((through) => through >= expected.seq)) return undefined;
  return { kind: 'unvouched', problem: 'the anchored row was removed by compaction and no signed checkpoint covers it; anchor a head taken after compact()' };
}

/**
 * Each append-only trigger must exist, sit on its own table and say what the
 * journal creates (a same-named no-op, or one on another table, guards
 * nothing); a trigger the journal does not create on a chained table, or on
 * the tables derived from them (the receipt key index and its reach, the
 * runs), could silently drop or divert writes.
 */
function triggerProblem(db: Database.Database): BadRow | undefined {
  const present = new Map(
    db
      .prepare<[], { name: string; tbl_name: string; sql: string | null }>(`SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'`)
      .all()
      .map((row) => [row.name, row]),
  );
  const bad = (problem: string): BadRow => ({ table: 'schema', id: 0, problem });
  const known = new Set<string>();
  for (const trigger of appendOnlyTriggers()) {
    known.add(trigger.name);
    const found = present.get(trigger.name);
    if (found === undefined) return bad(`append-only trigger ${trigger.name} is missing`);
    if (found.tbl_name.toLowerCase() !== trigger.table) return bad(`append-only trigger ${trigger.name} is on table ${found.tbl_name}, not ${trigger.table}`);
    if (normaliseSchemaSql(found.sql ?? '') !== normaliseSchemaSql(trigger.sql)) return bad(`append-only trigger ${trigger.name} differs from the one the journal creates`);
  }
  // The derived tables too: a trigger on the receipt key index could drop what a fold inserts, one on `meta` move its
  // reach, one on `runs` hide where a run's receipts begin from `recordings()`, one on `blobs` act inside every
  // commit that stores a long result.
  const guarded = new Set<string>([...CHAINED_TABLES, 'receipt_keys', 'meta', 'runs', 'blobs']);
  for (const found of present.values()) {
    if (!known.has(found.name) && guarded.has(found.tbl_name.toLowerCase())) return bad(`unexpected trigger ${found.name} on ${found.tbl_name}`);
  }
  return undefined;
}

function uncoveredProblem(uncovered: { legacy: boolean; sealed: boolean }): string {
  if (uncovered.sealed) {
    return 'signature missing: the row carries a seal, which only the signing key checks, not the public key, and no later signed row covers it (a writer signs one commit in every `signEveryMs` while it writes, once it stops and at close; verify with the signing key to check the seals)';
  }
  return uncovered.legacy ? 'signature missing: the row is unsigned and no later signed row covers it' : 'signature missing';
}

/**
 * A row's signature: `signed` when the trusted key verified it (or, with no
 * key, when one is present); `sealed` for a seal the verifier cannot check
 * (it holds the public key alone): covered only by a later signature.
 */
function checkSignature(row: ChainRow, verifier: ReceiptVerifier | undefined): { signed: boolean; sealed?: boolean; problem?: string } {
  const signature = row.signature ?? undefined;
  if (signature === undefined) return { signed: false };
  if (verifier === undefined) return { signed: true };
  if (row.key_id !== verifier.keyId) return { signed: false, problem: 'signed with an unknown key' };
  const made = keyMade(verifier, row.hash, signature);
  if (made === undefined) return { signed: false, sealed: true };
  return made ? { signed: true } : { signed: false, problem: isSeal(signature) ? 'seal mismatch' : 'signature mismatch' };
}
