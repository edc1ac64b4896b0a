import type Database from 'better-sqlite3';
import { chainRows, hashesAsStored, rowProblem, rowsAfter, type ChainRow, type RowsAfter } from './chain-rows.js';
import type { AppendObserver, ChainHead } from './chain-types.js';
import type { KeyVouching } from './key-vouching.js';
import { GENESIS_HASH } from './row-hash.js';
import { CHAINED_TABLES, HASHED_COLUMNS, type ChainedTable } from './schema.js';

/**
 * A signed journal's walk of the rows other connections commit, and the
 * checks of a row read again after it (`ChainStore.catchUp`); with or
 * without a signer, the floor its compactions leave. The key signs
 * the head, and a signature vouches for the rows below it only while they
 * chain up to it: so a row is walked before any reader takes it, and the
 * readers take rows only from the walk, never from the file, where a row
 * added under a number already walked, or changed since, would be read
 * unchecked (a forged `released` row that frees a crashed claim to run
 * again). Each row is walked once: one row per number, linked onto the one
 * before, hashed again; the signature is checked on the head alone, before
 * the walk hands over any row (`KeyVouching.lastVouched`): rows past a head
 * the key does not vouch for are handed over only once it does, never to
 * stay in the readers after a writer without the key removes them again.
 * Rows a compaction dropped before the walk reached them are passed only
 * for the checkpoint, walked with them, that names where they end.
 */
export class ChainWalk {
  readonly #observers: readonly AppendObserver[];
  /** What a walk reads: each table's rows past where the last one ended. */
  readonly #rowsAfter: RowsAfter;
  /** The links of the rows, across the chained tables, that carry a sequence number. */
  readonly #linksAt: Database.Statement<[{ seq: number }], string>;
  /** The rows through this position were walked and handed to the observers; undefined before the first walk. */
  #walked: ChainHead | undefined;
  /** `PRAGMA data_version` as of the last walk: while it reads the same, no other connection committed a row to walk. */
  #walkedAt: number | undefined;
  /** Rows numbered at or below it are out of the chain: the latest checkpoint walked or committed says a compaction dropped them. */
  #floor = 0;
  /** Where the checkpoint the open transaction appended says a compaction ended: the floor once it commits. */
  #floorWritten: number | undefined;

  constructor(db: Database.Database, observers: readonly AppendObserver[]) {
    this.#observers = observers;
    this.#rowsAfter = rowsAfter(db);
    this.#linksAt = db.prepare<[{ seq: number }], string>(CHAINED_TABLES.map((table) => `SELECT prev_hash FROM ${table} WHERE seq = @seq`).join(' UNION ALL ')).pluck();
  }

  /** The last row walked (or committed by this connection); undefined before the first walk. */
  get walked(): ChainHead | undefined {
    return this.#walked;
  }

  /** The last row number a compaction dropped, as the checkpoints walked or committed say: no row of the chain is numbered at or below it. */
  get floor(): number {
    return this.#floor;
  }

  /** Whether the walk is as far as the file at `version` (`PRAGMA data_version`): no other connection committed since. */
  isCurrent(version: number): boolean {
    return this.#walkedAt === version;
  }

  /** Walk again at the next chance: the rows past the last signed row are vouched for now (an operator signed them over). */
  forget(): void {
    this.#walkedAt = undefined;
  }

  /** This connection committed rows through `written`, linked onto a head walked in that transaction (or one no other connection has moved since). */
  committed(written: ChainHead, version: number): void {
    this.#walked = written;
    this.#walkedAt = version;
  }

  /** The open transaction appended a checkpoint: a compaction dropped the rows through `through`, once it commits. */
  checkpointWritten(through: number): void {
    this.#floorWritten = through;
  }

  /** The open transaction ended: a checkpoint it appended raises the floor only if it committed. */
  ended(committed: boolean): void {
    if (committed && this.#floorWritten !== undefined) this.#floor = Math.max(this.#floor, this.#floorWritten);
    this.#floorWritten = undefined;
  }

  /**
   * Walk the rows past the last walk (the first walk: every row), as the
   * file reads at `version`, up to the last row the key vouches for, and
   * hand each to the observers; `refuse` is told what does not chain, and
   * nothing past it is handed over. Runs in one read transaction with the
   * reads that follow it.
   */
  walk(version: number, vouching: KeyVouching, refuse: (problem: string) => void): void {
    const from = this.#walked ?? { seq: 0, hash: GENESIS_HASH };
    // Only rows up to a head the key vouches for are handed over: a row past it (a forged `released` claim the head
    // check then refuses) would stay in the readers after a writer without the key deleted it again.
    const through = vouching.lastVouched();
    if (through === undefined) return;
    // The file never ends below a row already walked (a compaction appends its checkpoint past the head): one that does
    // lost rows the readers hold, and another writer numbers its rows again under numbers no walk reaches (a claim a
    // crash left open there would never come in doubt).
    if (through.seq < from.seq || (through.seq === from.seq && through.hash !== from.hash)) {
      refuse(`the chain ends at #${through.seq}, below row #${from.seq} already walked: rows were deleted from its end`);
      return;
    }
    let previous = from;
    /** The rows before the first one walked that a compaction dropped (and that row): the checkpoint that names them must be walked too. */
    let dropped: (ChainHead & { after: string }) | undefined;
    /** The last row walked, handed over only once the next row is seen not to share its number. */
    let last: { table: ChainedTable; row: ChainRow } | undefined;
    for (const next of chainRows(this.#rowsAfter, from.seq)) {
      const { table, row } = next;
      // In the walk's read transaction no row lands past the head it read; one numbered as the head was walked.
      if (row.seq > through.seq) break;
      if (previous === from && row.seq > from.seq + 1) {
        dropped = { seq: row.seq - 1, hash: row.prev_hash, after: `${table} #${row.seq}` };
        previous = dropped;
      }
      const problem = rowProblem(previous, table, row);
      if (problem !== undefined) {
        refuse(`${table} #${row.seq}: ${problem}`);
        return;
      }
      if (dropped !== undefined && table === 'checkpoints' && row.through_seq === dropped.seq && row.through_hash === dropped.hash) dropped = undefined;
      if (last !== undefined) this.#handOver(last.table, last.row);
      last = next;
      previous = { seq: row.seq, hash: row.hash };
    }
    if (dropped !== undefined) {
      refuse(`${dropped.after}: rows ${from.seq + 1}–${dropped.seq} are missing and no checkpoint covers them`);
      return;
    }
    if (last !== undefined) this.#handOver(last.table, last.row);
    this.#walkedAt = version;
  }

  /**
   * Whether `row`, read from `table` again after the walk (a receipt to
   * replay), holds its number alone, hashes to its stored hash and is what
   * the next row links onto (or, the last row walked or `written` in the
   * open transaction, is that row). Its number must be one the walk covers,
   * above the rows a compaction dropped: a row added under a number no row
   * holds (below the chain, or among the dropped ones) links onto nothing
   * walked and has no row after it, and a receipt key index entry naming it
   * would replay it.
   */
  rowIntact(table: ChainedTable, row: ChainRow, written: ChainHead | undefined, vouching: KeyVouching): boolean {
    // Inside a write, the rows it appended are above the ones walked.
    const top = written ?? this.#walked;
    return top !== undefined && row.seq > this.#floor && row.seq <= top.seq && vouching.numbered(row.seq) === 1 && hashesAsStored(table, row) && this.#linkedOnto(row, top);
  }

  /** Tell the observers of a row walked: the readers' only source of the rows other connections commit. */
  #handOver(table: ChainedTable, row: ChainRow): void {
    const values = HASHED_COLUMNS[table].map((column) => (row[column] ?? null) as string | number | null);
    for (const observer of this.#observers) observer.walked?.(table, row.seq, values);
    if (table === 'checkpoints') this.#floor = Math.max(this.#floor, Number(row.through_seq));
    this.#walked = { seq: row.seq, hash: row.hash };
  }

  /** Whether the next row links onto `row`, or `row` is `top`, the last row walked or written, which none follows yet. */
  #linkedOnto(row: ChainRow, top: ChainHead): boolean {
    const links = this.#linksAt.all({ seq: row.seq + 1 });
    if (links.length === 0) return row.seq === top.seq && row.hash === top.hash;
    return links.every((link) => link === row.hash);
  }
}
