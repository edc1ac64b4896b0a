import type Database from 'better-sqlite3';
import { ConfigurationError } from '../../core/internal.js';
import { CHAIN_HEAD_SQL, type ChainRow } from './chain-rows.js';
import type { AppendObserver, ChainHead, ChainStore } from './chain-store.js';
import { HASHED_COLUMNS, normaliseSchemaSql, RECEIPT_KEYS_TABLE_SQL, type ChainedTable } from './schema.js';

const RECEIPT_KEY = HASHED_COLUMNS.receipts.indexOf('key');

/** Rows of the chain the tail spans at most: the receipt written past them folds the tail into `receipt_keys`. */
export const FOLD_AT = 512;

/** The `meta` row that says how far `receipt_keys` reaches: every receipt numbered at or below it is in it. */
const THROUGH = 'receipt_keys_through';

/**
 * The latest receipt of a key (`prepare` finds a call already recorded by
 * it), without an index that every commit pays for. An index of receipts by
 * key cost each commit a page of its own, and each call commits once: a
 * tenth of an effect-tier call's time or more (when keys differ from call
 * to call) went to that page and to checkpointing it. Here the receipts are
 * folded into `receipt_keys` (key, seq) once the chain has grown `FOLD_AT`
 * rows past it, all in the transaction of the receipt that finds it so, and
 * the receipts past it, the tail, are mirrored in memory, every
 * connection's, as the open claims are (`OpenClaims`): this connection's as it appends
 * them, the others' read by sequence number when `PRAGMA data_version`
 * says another connection committed. A key is looked up in the tail first
 * (it is newer), then in `receipt_keys`. With a signer the tail reads no
 * rows itself: the store walks each row another connection commits and
 * hands it over (`ChainStore.catchUp`), a fold inserts the receipts the
 * tail was told of, under the keys it was told of, not whatever the file
 * holds past the reach, and a receipt found is checked again before it is
 * replayed (`checkRow`).
 *
 * The table is derived, not chained, so `verify()` checks it against the
 * receipts (`receiptKeysProblem`): a key entry removed would let a call
 * already recorded run again, one added would answer a call with another
 * call's result.
 */
export class ReceiptKeys implements AppendObserver {
  readonly #store: ChainStore;
  readonly #statements: {
    through: Database.Statement<[], string>;
    setThrough: Database.Statement<[string]>;
    fold: Database.Statement<[string]>;
    /** The first of the receipts named (`[key, seq]` pairs) the file no longer holds under that key, above a number. */
    changed: Database.Statement<[{ receipts: string; above: number }], number>;
    /** The first of the receipts named (`[key, seq]` pairs) that `receipt_keys` leaves out, above a number. */
    leftOut: Database.Statement<[{ receipts: string; above: number; walked: number }], number>;
    after: Database.Statement<[{ from: number; before: number }], { seq: number; key: string }>;
    atSeq: Database.Statement<[number, string], ChainRow & { body: string }>;
    /** The key's latest entry (`entry`) and its receipt, every column of which is null once the receipt is gone. */
    folded: Database.Statement<[string], Record<string, unknown> & { entry: number; seq: number | null }>;
  };
  /** The latest receipt of each key numbered above `#through`. */
  #tail = new Map<string, number>();
  /**
   * Every receipt numbered above `#through` the tail was told of, by key and
   * number: what the next fold inserts. With a signer, the key the walk
   * handed over: read from the file, a key changed since would be folded,
   * and the call the receipt recorded run again.
   */
  #unfolded: [string, number][] = [];
  /** Every receipt numbered at or below it is in `receipt_keys`. */
  #through = 0;
  /** The highest receipt number mirrored. */
  #seen = 0;
  /** `PRAGMA data_version` when the mirror last matched the file; undefined before the first read. */
  #version: number | undefined;
  /** How to take back what the open transaction changed, newest last. */
  #undo: (() => void)[] = [];

  constructor(store: ChainStore) {
    this.#store = store;
    const db = store.db;
    this.#statements = {
      through: db.prepare<[], string>(`SELECT value FROM meta WHERE name = '${THROUGH}'`).pluck(),
      setThrough: db.prepare(`INSERT OR REPLACE INTO meta (name, value) VALUES ('${THROUGH}', ?)`),
      // The numbers come as a JSON array: one statement for the whole tail. A row a compaction dropped is not inserted.
      fold: db.prepare(`INSERT OR IGNORE INTO receipt_keys (key, seq) SELECT r.key, r.seq FROM json_each(?) j JOIN receipts r ON r.seq = j.value ->> 1 AND r.key = j.value ->> 0`),
      changed: db
        .prepare<[{ receipts: string; above: number }], number>(
          `SELECT j.value ->> 1 AS seq FROM json_each(@receipts) j WHERE j.value ->> 1 > @above AND NOT EXISTS (SELECT 1 FROM receipts r WHERE r.seq = j.value ->> 1 AND r.key = j.value ->> 0) ORDER BY seq LIMIT 1`,
        )
        .pluck(),
      // Without a walk (`walked` 0) a receipt the file no longer holds was dropped by a compaction; with one, only below the floor.
      leftOut: db
        .prepare<[{ receipts: string; above: number; walked: number }], number>(
          `SELECT j.value ->> 1 AS seq FROM json_each(@receipts) j WHERE j.value ->> 1 > @above AND NOT EXISTS (SELECT 1 FROM receipt_keys k WHERE k.key = j.value ->> 0 AND k.seq = j.value ->> 1)
           AND (@walked = 1 OR EXISTS (SELECT 1 FROM receipts r WHERE r.seq = j.value ->> 1)) ORDER BY seq LIMIT 1`,
        )
        .pluck(),
      after: db.prepare(`SELECT seq, key FROM receipts WHERE seq > @from AND seq < @before ORDER BY seq`),
      atSeq: db.prepare(`SELECT * FROM receipts WHERE seq = ? AND key = ?`),
      folded: db.prepare(`SELECT k.seq AS entry, r.* FROM receipt_keys k LEFT JOIN receipts r ON r.seq = k.seq AND r.key = k.key WHERE k.key = ? ORDER BY k.seq DESC LIMIT 1`),
    };
    this.#through = reachOf(this.#statements.through.get()) ?? 0;
    store.observe(this);
  }

  /** The body of the latest receipt of `key`, or undefined. Inside a write it sees that write's own receipts. */
  bodyOf(key: string): string | undefined {
    this.#catchUp(Number.MAX_SAFE_INTEGER);
    const row = this.#inTail(key) ?? this.#folded(key);
    if (row === undefined) return undefined;
    this.#store.checkRow('receipts', row);
    return row.body;
  }

  /** The key's receipt the tail names, undefined when there is none or a compaction dropped it. */
  #inTail(key: string): (ChainRow & { body: string }) | undefined {
    const seq = this.#tail.get(key);
    if (seq === undefined) return undefined;
    const row = this.#statements.atSeq.get(seq, key);
    // The tail names the key's latest receipt: once a compaction dropped it, every earlier one went with it. Gone
    // otherwise, it was deleted, and the call it recorded would run again.
    if (row === undefined) this.#store.checkDropped('receipts', seq);
    return row;
  }

  /** The key's receipt `receipt_keys` names, undefined when there is none or a compaction dropped it. */
  #folded(key: string): (ChainRow & { body: string }) | undefined {
    const found = this.#statements.folded.get(key);
    if (found === undefined) return undefined;
    // The entry's number is no column of the receipt: its hash is checked over the receipt's own columns alone.
    const { entry, ...row } = found;
    if (row.seq !== null) return row as ChainRow & { body: string };
    // An entry whose receipt is gone: the index says the call was recorded.
    this.#store.checkDropped('receipts', entry);
    return undefined;
  }

  appended(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): void {
    if (table !== 'receipts') return;
    // The receipts other connections committed before this one first: the file's, up to (not including) it.
    this.#catchUp(seq);
    this.#note(String(values[RECEIPT_KEY]), seq);
    if (seq - this.#through >= FOLD_AT) this.#fold(seq);
  }

  ended(committed: boolean): void {
    if (!committed) for (let index = this.#undo.length - 1; index >= 0; index -= 1) (this.#undo[index] as () => void)();
    if (this.#undo.length > 0) this.#undo = [];
  }

  walked(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): void {
    if (table === 'receipts' && seq > this.#through) this.#mirror(String(values[RECEIPT_KEY]), seq);
  }

  /** Mirror one receipt of this connection, undone if its transaction rolls back. */
  #note(key: string, seq: number): void {
    const previous = this.#tail.get(key);
    const seen = this.#seen;
    this.#mirror(key, seq);
    this.#undo.push(() => {
      if (previous === undefined) this.#tail.delete(key);
      else this.#tail.set(key, previous);
      this.#seen = seen;
      this.#unfolded.pop();
    });
  }

  #mirror(key: string, seq: number): void {
    this.#tail.set(key, seq);
    this.#unfolded.push([key, seq]);
    this.#seen = seq;
  }

  /** Inside the write that appended receipt `seq`: every receipt up to it goes into `receipt_keys`. */
  #fold(seq: number): void {
    const unfoldedJson = JSON.stringify(this.#unfolded);
    // With a signer, every receipt walked must still be in the file as it was walked (a compaction may have dropped
    // it): one deleted, or whose key changed, would be left out, and the call it recorded run again.
    if (this.#store.signer !== undefined) {
      const changed = this.#statements.changed.get({ receipts: unfoldedJson, above: this.#store.compactedThrough });
      if (changed !== undefined) this.#store.checkDropped('receipts', changed);
    }
    this.#statements.fold.run(unfoldedJson);
    this.#statements.setThrough.run(String(seq));
    const tail = this.#tail;
    const unfolded = this.#unfolded;
    const through = this.#through;
    this.#tail = new Map();
    this.#unfolded = [];
    this.#through = seq;
    this.#undo.push(() => {
      this.#tail = tail;
      this.#unfolded = unfolded;
      this.#through = through;
    });
  }

  /** Read what other connections committed since the mirror last matched the file: how far the table reaches, and the receipts past it numbered below `before`. */
  #catchUp(before: number): void {
    if (this.#store.dataVersion() === this.#version) return;
    // With a signer, the walk and the reach in one read transaction: a reach read after the walk could pass a receipt
    // another process committed in between, which the next walk then leaves out of the tail as folded, and which the
    // check of the reach never saw (a writer without the key moves the reach past it: the call it recorded runs again).
    this.#store.read(() => this.#readSince(before));
  }

  #readSince(before: number): void {
    // Read before the rows: a commit that lands in between moves it again, and is read next time.
    const version = this.#store.dataVersion();
    if (version === this.#version) return;
    // With a signer the receipts come walked: read from the file, one added under a number already walked would be mirrored.
    const walked = this.#store.signer !== undefined;
    if (walked) this.#store.catchUp();
    const through = reachOf(this.#statements.through.get());
    // Read at open too, unchecked, so the first walk mirrors no receipt already folded: checked at the first read.
    if (through !== this.#through || this.#version === undefined) this.#reach(through);
    if (!walked) for (const row of this.#statements.after.all({ from: Math.max(this.#seen, this.#through), before })) this.#mirror(row.key, row.seq);
    this.#version = version;
  }

  /** Another connection folded the tail up to `through`: every receipt this tail holds up to it must be in `receipt_keys`. */
  #reach(through: number | undefined): void {
    // A reach past the head would hide from the tail, and fold into the table, none of the receipts below it.
    if (through === undefined || through > this.#store.head().seq) throw new ConfigurationError('journal', 'has a receipt key index that reaches past its chain; run verify()');
    // One that was moved without folding them would let the calls they recorded run again.
    const folded = this.#unfolded.filter(([, seq]) => seq <= through);
    const walked = this.#store.signer === undefined ? 0 : 1;
    if (folded.length > 0 && this.#statements.leftOut.get({ receipts: JSON.stringify(folded), above: this.#store.compactedThrough, walked }) !== undefined) throw new ConfigurationError('journal', 'has a receipt key index that leaves out receipts below its reach; run verify()');
    this.#through = through;
    this.#unfolded = this.#unfolded.filter(([, seq]) => seq > through);
    for (const [key, seq] of this.#tail) if (seq <= through) this.#tail.delete(key);
  }
}

/**
 * Whether `receipt_keys` says exactly what the receipts say: it is declared
 * as the journal creates it, every receipt the table reaches is in it under
 * its own key, it names no other, and it reaches no further than the chain.
 */
export function receiptKeysProblem(db: Database.Database): { table: string; id: number; problem: string } | undefined {
  // Declared otherwise, the same entries can mean other answers: a key compared without case answers another call, and a
  // constraint that a fold's INSERT OR IGNORE trips drops the receipts it folds.
  const declared = db.prepare<[], string | null>(`SELECT sql FROM sqlite_master WHERE lower(name) = 'receipt_keys'`).pluck().get();
  if (normaliseSchemaSql(declared ?? '') !== normaliseSchemaSql(RECEIPT_KEYS_TABLE_SQL)) return { table: 'schema', id: 0, problem: 'receipt_keys differs from the table the journal creates' };
  const through = reachOf(db.prepare<[], string>(`SELECT value FROM meta WHERE name = '${THROUGH}'`).pluck().get());
  const head = db.prepare<[], ChainHead>(CHAIN_HEAD_SQL).get()?.seq ?? 0;
  const missing = db
    .prepare<[number], number>(`SELECT r.seq FROM receipts r WHERE r.seq <= ? AND NOT EXISTS (SELECT 1 FROM receipt_keys k WHERE k.key = r.key AND k.seq = r.seq) ORDER BY r.seq LIMIT 1`)
    .pluck()
    .get(through ?? head);
  if (missing !== undefined) return { table: 'receipts', id: missing, problem: 'missing from the receipt key index: a call it recorded could run again' };
  const stray = db
    .prepare<[], number>(`SELECT k.seq FROM receipt_keys k WHERE NOT EXISTS (SELECT 1 FROM receipts r WHERE r.seq = k.seq AND r.key = k.key) ORDER BY k.seq LIMIT 1`)
    .pluck()
    .get();
  if (stray !== undefined) return { table: 'receipt_keys', id: stray, problem: 'the receipt key index names a receipt that is not there' };
  if (through === undefined || through > head) return { table: 'meta', id: 0, problem: 'the receipt key index reaches past the chain: a call recorded after it would be found by no other connection' };
  return undefined;
}

/**
 * The reach as the journal writes it (a row's sequence number, 0 while
 * absent), or undefined for any other value: read as a number, text that is
 * none (NaN) or one past the chain would read no receipt into the tail.
 */
function reachOf(value: string | undefined): number | undefined {
  if (value === undefined) return 0;
  return /^(0|[1-9][0-9]{0,14})$/.test(value) ? Number(value) : undefined;
}
