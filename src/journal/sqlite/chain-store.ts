import type Database from 'better-sqlite3';
import { ConfigurationError } from '../../core/internal.js';
import { GENESIS_HASH, hashColumnValues, type RowFields } from './row-hash.js';
import type { ReceiptSigner } from './receipt-signer.js';
import { CHAINED_TABLES, HASHED_COLUMNS, type ChainedTable } from './schema.js';
import { chainRows, hashesAsStored, rowProblem, rowsAfter, type ChainRow, type RowsAfter } from './chain-rows.js';

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** The last row of the chain, whichever table holds it: each table's last row by its own key, then the latest of those. */
const lastRowSql = (columns: string): string =>
  `SELECT * FROM (${CHAINED_TABLES.map((table) => `SELECT * FROM (SELECT ${columns}, '${table}' AS "table" FROM ${table} ORDER BY seq DESC LIMIT 1)`).join(' UNION ALL ')}) ORDER BY seq DESC LIMIT 1`;

export const CHAIN_HEAD_SQL = `SELECT seq, hash FROM (${lastRowSql('seq, hash')})`;

/**
 * The rows the file ends on that no signature covers: `from` the first after
 * the last signed row, `through` the head, `head` the head's hash, which
 * chains every row before it: what an operator who checked the rows signs
 * over (`ChainStore.signOverTail`), and nothing else.
 */
export interface UnsignedTail {
  readonly from: number;
  readonly through: number;
  readonly head: string;
}

interface HeadRow extends ChainHead {
  readonly table: ChainedTable;
  readonly key_id: string | null;
  readonly signature: string | null;
}

/** The refusal of a head the journal's key does not vouch for: `found` says what the file ends on. */
function notSigned(found: string): ConfigurationError {
  return new ConfigurationError(
    'journal',
    `${found}: a writer without the key may have appended it, and the next signature would vouch for it. Nothing more is written to this journal; run verify() (toolgate audit verify), then move the file aside or, if you wrote those rows yourself while signing was off, sign them over (toolgate audit sign-tail)`,
  );
}

/** The refusal to sign over a tail that begins past `row`, a row whose signature the journal's key does not verify. */
function notSignedOver(row: string): ConfigurationError {
  return new ConfigurationError(
    'journal',
    `ends on unsigned rows past ${row}, whose signature does not verify with the journal's key: a writer without the key may have forged it, and signing the tail over would vouch for it unseen. Nothing is signed over; run verify() (toolgate audit verify), then move the file aside`,
  );
}

/**
 * Told of every row this connection appends, as it is inserted, and of how
 * the transaction holding it ended: a row is in the file only once its
 * transaction committed (the open-claims mirror). With a signer, also told
 * of every row other connections committed, once the store walked it.
 */
export interface AppendObserver {
  /** `values`: the row's hashed columns as bound, in `HASHED_COLUMNS` order (then the chain's). */
  appended(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): void;
  /** `committed` false: the transaction rolled back and every row it was told of is gone. */
  ended(committed: boolean): void;
  /**
   * A row of the file, walked (`ChainStore.catchUp`): it holds its number
   * alone, links onto the row before it and hashes to its stored hash.
   * `values` as for `appended`. With a signer the readers take the rows
   * other connections commit from here, never from the file.
   */
  walked?(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): void;
}

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
  readonly #headRow: Database.Statement<[], HeadRow>;
  readonly #lastSigned: Database.Statement<[], number | null>;
  /** How many rows, across the chained tables, carry a sequence number. */
  readonly #numbered: Database.Statement<[{ seq: number }], number>;
  /** The rows, across the chained tables, that carry a sequence number, as the head is read. */
  readonly #rowAt: Database.Statement<[{ seq: number }], HeadRow>;
  /** The links of the rows, across the chained tables, that carry a sequence number. */
  readonly #linksAt: Database.Statement<[{ seq: number }], string>;
  /** What a walk reads: each table's rows past where the last one ended. */
  readonly #rowsAfter: RowsAfter;
  readonly #inserts = new Map<ChainedTable, Database.Statement>();
  /** A whole row of a table by its number (the head, hashed again at every read). */
  readonly #rowBySeq = new Map<ChainedTable, Database.Statement<[number], ChainRow>>();
  readonly #dataVersion: Database.Statement<[], number>;
  readonly #transaction: Database.Transaction<(work: () => unknown) => unknown>;
  /** The head as of our last commit, valid while no other connection has committed since. */
  #cached: { head: ChainHead; version: number } | undefined;
  /** The last row the open transaction appended (or the head it pinned); undefined outside `write`. */
  #written: ChainHead | undefined;
  /** The last head read from the file that this store checked it may link onto (its signature verified once, not per read). */
  #vouched: ChainHead | undefined;
  /** Why this store writes, replays and anchors nothing: rows below the head that do not chain (`refuse`). */
  #refusal: ConfigurationError | undefined;
  /** Whether the last row this transaction appended carries no signature (the head of a batch must). */
  #headUnsigned = false;
  /** Whether `append` signs: always, except for the rows of a batch before its last write (`writeBatch`). */
  #signing = true;
  #afterCommit: (() => void) | undefined;
  readonly #observers: AppendObserver[] = [];
  /** `PRAGMA data_version` as read when the open transaction began; undefined outside `write`. */
  #version: number | undefined;
  /** With a signer: the rows through this position were walked and handed to the observers; undefined before the first walk. */
  #walked: ChainHead | undefined;
  /** `PRAGMA data_version` as of the last walk: while it reads the same, no other connection committed a row to walk. */
  #walkedAt: number | undefined;
  /** Rows numbered at or below it are out of the chain: the latest checkpoint walked or committed says a compaction dropped them. */
  #floor = 0;
  /** Where the checkpoint the open transaction appended says a compaction ended: the floor once it commits. */
  #floorWritten: number | undefined;

  constructor(db: Database.Database, signer: ReceiptSigner | undefined) {
    this.db = db;
    this.signer = signer;
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.#transaction = db.transaction((work: () => unknown) => work());
    this.#head = db.prepare<[], ChainHead>(CHAIN_HEAD_SQL);
    this.#headRow = db.prepare<[], HeadRow>(lastRowSql('seq, hash, key_id, signature'));
    this.#lastSigned = db.prepare<[], number | null>(`SELECT max(seq) FROM (${CHAINED_TABLES.map((table) => `SELECT max(seq) AS seq FROM ${table} WHERE signature IS NOT NULL`).join(' UNION ALL ')})`).pluck();
    this.#numbered = db.prepare<[{ seq: number }], number>(`SELECT ${CHAINED_TABLES.map((table) => `(SELECT count(*) FROM ${table} WHERE seq = @seq)`).join(' + ')}`).pluck();
    this.#rowsAfter = rowsAfter(db);
    this.#rowAt = db.prepare<[{ seq: number }], HeadRow>(CHAINED_TABLES.map((table) => `SELECT seq, hash, key_id, signature, '${table}' AS "table" FROM ${table} WHERE seq = @seq`).join(' UNION ALL '));
    this.#linksAt = db.prepare<[{ seq: number }], string>(CHAINED_TABLES.map((table) => `SELECT prev_hash FROM ${table} WHERE seq = @seq`).join(' UNION ALL ')).pluck();
  }

  head(): ChainHead {
    return this.#head.get() ?? { seq: 0, hash: GENESIS_HASH };
  }

  /**
   * Run `work` in an immediate (write-locking) transaction. Inside it the
   * head is read from the file unless `PRAGMA data_version` proves no other
   * connection committed since our own last write.
   */
  write<T>(work: () => T): T {
    // A write inside a write would end the outer transaction's bookkeeping (its head, the rows the mirror was told of) early.
    if (this.#version !== undefined) throw new Error('ChainStore.write does not nest');
    let version = -1;
    this.#written = undefined;
    this.#floorWritten = undefined;
    this.#headUnsigned = false;
    try {
      const result = this.#transaction.immediate(() => {
        version = this.#dataVersion.get() ?? -1;
        this.#version = version;
        if (this.#cached !== undefined && this.#cached.version !== version) this.#cached = undefined;
        return work();
      }) as T;
      this.#version = undefined;
      // Past its transaction, the last row written is the head only while `PRAGMA data_version` says so (the cache):
      // read as the head then, it would let a reader skip the check of a row another writer appended since.
      const written = this.#written;
      this.#written = undefined;
      if (this.#floorWritten !== undefined) this.#floor = Math.max(this.#floor, this.#floorWritten);
      for (const observer of this.#observers) observer.ended(true);
      if (written !== undefined) {
        this.#cached = { head: written, version };
        // Its rows link onto a head walked in this transaction (or one no other connection has moved since).
        if (this.signer !== undefined) {
          this.#walked = written;
          this.#walkedAt = version;
        }
        this.#afterCommit?.();
      }
      return result;
    } catch (error) {
      this.#version = undefined;
      this.#written = undefined;
      this.#cached = undefined;
      for (const observer of this.#observers) observer.ended(false);
      throw error;
    }
  }

  /**
   * `PRAGMA data_version`, which moves only when another connection commits.
   * Inside `write` it is the value read as the transaction began: while the
   * transaction holds the write lock no other connection can commit.
   */
  dataVersion(): number {
    return this.#version ?? this.#dataVersion.get() ?? -1;
  }

  /** Called after every commit that appended rows (the anchor keeper). */
  onCommit(listener: () => void): void {
    this.#afterCommit = listener;
  }

  /**
   * Be told of every row appended from now on, and of how its transaction
   * ended (the open-claims mirror, the run index); with a signer, of every
   * row walked too, from the first walk on: an observer that came later
   * would never be told of the rows before it.
   */
  observe(observer: AppendObserver): void {
    if (this.#walked !== undefined) throw new Error('ChainStore.observe must come before the first walk');
    this.#observers.push(observer);
  }

  /**
   * With a signer, walk the rows other connections committed since the last
   * walk (the first walk: every row) and hand each to the observers; false
   * once the rows do not chain (`refuse`). The key signs the head, and a
   * signature vouches for the rows below it only while they chain up to it:
   * so a row is walked before any reader takes it, and the readers take rows
   * only from the walk, never from the file, where a row added under a
   * number already walked, or changed since, would be read unchecked (a
   * forged `released` row that frees a crashed claim to run again). Each
   * row is walked once: one row per number, linked onto the one before,
   * hashed again; the signature is checked on the head alone, before the
   * walk hands over any row (`#vouchedHead`): rows past a head the key does
   * not vouch for are handed over only once it does, never to stay in the
   * readers after a writer without the key removes them again.
   * Rows a compaction dropped before the walk reached them are passed only
   * for the checkpoint, walked with them, that names where they end.
   * Without a signer there is nothing to walk: the readers read the file.
   */
  catchUp(): boolean {
    if (this.signer !== undefined && this.#refusal === undefined && this.#walkedAt !== this.dataVersion()) this.read(() => this.#walkNewRows());
    return this.#refusal === undefined;
  }

  #walkNewRows(): void {
    // The version is read before the rows: a commit that lands in between moves it again, and is walked next time.
    const version = this.dataVersion();
    const from = this.#walked ?? { seq: 0, hash: GENESIS_HASH };
    // Only rows up to a head the key vouches for are handed over: a row past it (a forged `released` claim the head
    // check then refuses) would stay in the readers after a writer without the key deleted it again.
    const through = this.#vouchedHead();
    if (through === undefined) return;
    // The file never ends below a row already walked (a compaction appends its checkpoint past the head): one that does
    // lost rows the readers hold, and another writer numbers its rows again under numbers no walk reaches (a claim a
    // crash left open there would never come in doubt).
    if (through.seq < from.seq || (through.seq === from.seq && through.hash !== from.hash)) {
      this.refuse(`the chain ends at #${through.seq}, below row #${from.seq} already walked: rows were deleted from its end`);
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
        this.refuse(`${table} #${row.seq}: ${problem}`);
        return;
      }
      if (dropped !== undefined && table === 'checkpoints' && row.through_seq === dropped.seq && row.through_hash === dropped.hash) dropped = undefined;
      if (last !== undefined) this.#handOver(last.table, last.row);
      last = next;
      previous = { seq: row.seq, hash: row.hash };
    }
    if (dropped !== undefined) {
      this.refuse(`${dropped.after}: rows ${from.seq + 1}–${dropped.seq} are missing and no checkpoint covers them`);
      return;
    }
    if (last !== undefined) this.#handOver(last.table, last.row);
    this.#walkedAt = version;
  }

  /**
   * The last row the key vouches for: the file's head when it is signed with
   * the key (its signature checked once per head, `#vouched`, and it hashes
   * as stored), else the last signed row when its signature verifies, else
   * undefined, and the walk hands over nothing. The head check refuses such
   * a head; rows an operator signs over (`signOverTail`) are vouched
   * for then.
   */
  #vouchedHead(): ChainHead | undefined {
    const head = this.#headRow.get();
    if (head === undefined) return { seq: 0, hash: GENESIS_HASH };
    if (this.#vouches(head)) return (this.#vouched = { seq: head.seq, hash: head.hash });
    // Rows written while signing was off, or forged: those below the last signed row are still vouched for (the
    // open claims among them are listed), none past it.
    const signed = this.#lastSignedRow();
    return signed !== undefined && signed.seq < head.seq && this.#vouches(signed) ? { seq: signed.seq, hash: signed.hash } : undefined;
  }

  /** The last row that carries a signature, whichever key made it (or none); undefined when no row does. */
  #lastSignedRow(): HeadRow | undefined {
    const seq = this.#lastSigned.get() ?? 0;
    return seq > 0 ? this.#rowAt.get({ seq }) : undefined;
  }

  /** Whether the key vouches for `row`: signed with it, or the head vouched before, and hashing as stored. */
  #vouches(row: HeadRow): boolean {
    const signer = this.signer;
    if (signer === undefined) return false;
    const vouched = this.#vouched?.seq === row.seq && this.#vouched.hash === row.hash;
    return (vouched || (row.key_id === signer.keyId && row.signature !== null && signer.verify(row.hash, row.signature))) && this.#fileRowHashesAsStored(row);
  }

  /** Tell the observers of a row walked: the readers' only source of the rows other connections commit. */
  #handOver(table: ChainedTable, row: ChainRow): void {
    const values = HASHED_COLUMNS[table].map((column) => (row[column] ?? null) as string | number | null);
    for (const observer of this.#observers) observer.walked?.(table, row.seq, values);
    if (table === 'checkpoints') this.#floor = Math.max(this.#floor, Number(row.through_seq));
    this.#walked = { seq: row.seq, hash: row.hash };
  }

  /**
   * Throw unless `row`, read from `table` again after the walk (a receipt to
   * replay), holds its number alone, hashes to its stored hash and is what
   * the next row links onto (or, the last row walked, is that row): a row a
   * writer without the key added under a number already walked, or changed
   * in place, is not acted on. Its number must be one the walk covers, above
   * the rows a compaction dropped: a row added under a number no row holds
   * (below the chain, or among the dropped ones) links onto nothing walked
   * and has no row after it, and a receipt key index entry naming it would
   * replay it. From then on the journal refuses (`refuse`).
   */
  checkRow(table: ChainedTable, row: ChainRow): void {
    if (!this.rowIntact(table, row)) throw this.#refusal as ConfigurationError;
  }

  /** What `checkRow` checks, for a reader that shows what it can instead of throwing: false once the journal refuses. */
  rowIntact(table: ChainedTable, row: ChainRow): boolean {
    if (this.signer === undefined) return true;
    // Inside a write, the rows it appended are above the ones walked.
    const top = this.#written ?? this.#walked;
    const intact =
      top !== undefined &&
      row.seq > this.#floor &&
      row.seq <= top.seq &&
      this.#numbered.get({ seq: row.seq }) === 1 &&
      hashesAsStored(table, row) &&
      this.#linkedOnto(row, top);
    if (!intact) this.refuse(`${table} #${row.seq}: changed or added after it was walked`);
    return intact;
  }

  /** The last row number a compaction dropped, as the checkpoints walked or committed say: no row of the chain is numbered at or below it. */
  get compactedThrough(): number {
    return this.#floor;
  }

  /**
   * Throw unless a compaction dropped the row numbered `seq` that the walk
   * handed over and `table` no longer holds as it was walked: gone
   * otherwise, or changed, a writer without the key deleted or changed it
   * (a receipt, and the call it recorded would run again). From then on the
   * journal refuses (`refuse`).
   */
  checkDropped(table: ChainedTable, seq: number): void {
    if (!this.rowDropped(table, seq)) throw this.#refusal as ConfigurationError;
  }

  /** What `checkDropped` checks, for a reader that shows what it can instead of throwing: false once the journal refuses. */
  rowDropped(table: ChainedTable, seq: number): boolean {
    if (this.signer === undefined || seq <= this.#floor) return true;
    this.refuse(`${table} #${seq}: deleted or changed after it was walked`);
    return false;
  }

  /** Whether the next row links onto `row`, or `row` is `top`, the last row walked or written, which none follows yet. */
  #linkedOnto(row: ChainRow, top: ChainHead): boolean {
    const links = this.#linksAt.all({ seq: row.seq + 1 });
    if (links.length === 0) return row.seq === top.seq && row.hash === top.hash;
    return links.every((link) => link === row.hash);
  }

  /**
   * Run several writes in one immediate transaction: one commit for all of
   * them. With a signer only the rows of the last write are signed; every
   * earlier row is written without a key id or signature, and the last
   * write's signature covers it through the chain (each hash includes the
   * previous one), so the commit still ends on a signed row. The writes'
   * values, or `undefined` when the batch cannot commit as one (a write threw,
   * or the last one appended nothing and would leave an unsigned head): then
   * nothing of it was written, and the caller runs each write in its own
   * `write`. A failure of the transaction itself (a busy lock, a full disk)
   * is thrown.
   */
  writeBatch(works: readonly (() => unknown)[]): unknown[] | undefined {
    let failed = false;
    try {
      return this.write(() => {
        const values: unknown[] = [];
        try {
          works.forEach((work, index) => {
            this.#signing = index === works.length - 1;
            values.push(work());
          });
        } catch (error) {
          failed = true;
          throw error;
        } finally {
          this.#signing = true;
        }
        if (this.#headUnsigned) {
          // Thrown only to roll the transaction back; the caller commits each write alone instead.
          failed = true;
          throw new Error('the batch would end on an unsigned row');
        }
        return values;
      });
    } catch (error) {
      if (failed) return undefined;
      throw error;
    }
  }

  /**
   * The head the next row links onto: this connection's own last row while
   * no other connection committed since, else the file's.
   * With a signer the file's head must carry a signature of its key (checked
   * once per head): the next signature would vouch for every row before it,
   * so a row appended by a writer without the key (a forged `released` claim
   * that frees a crashed effect to run again) would pass `verify()` from the
   * next commit on. A history older than the key is signed over at open,
   * or on an operator's word (`signOverTail`), never on the way.
   */
  linkHead(): ChainHead {
    if (this.#refusal !== undefined) throw this.#refusal;
    if (this.#written !== undefined) return this.#written;
    // Inside `write` a stale cache was dropped as the transaction began; outside, it is checked against the file now.
    if (this.#cached !== undefined && this.#cached.version === this.dataVersion()) return this.#cached.head;
    return this.#fileHead();
  }

  /**
   * From now on link onto, read from and anchor nothing: the rows below the
   * head do not chain (`problem`, as `verify()` names it). A signature over
   * the head vouches only for a chain that links, so a row changed, replaced
   * or added under a number another holds would be acted on, and signed
   * over, as if the key covered it. The first refusal stays: it names what
   * the walk or a check found first (a row read later fails a check only
   * because of it).
   */
  refuse(problem: string): void {
    this.#refusal ??= new ConfigurationError(
      'journal',
      `does not verify below its head (${problem}): a writer without the key may have changed or added a row, and the journal would act on it. Nothing more is written to this journal; run verify() (toolgate audit verify), then move the file aside`,
    );
  }

  /**
   * With a signer, throw unless the file ends on a row its key signed (see
   * `linkHead`): a reader about to act on the rows (a receipt to replay, a
   * claim found released) acts only on rows the key covers, not on one a
   * writer without the key appended.
   */
  checkHead(): void {
    if (this.signer !== undefined) this.linkHead();
  }

  /** What `checkHead` would refuse, in its words; undefined when it passes. */
  headProblem(): string | undefined {
    try {
      this.checkHead();
      return undefined;
    } catch (error) {
      if (error instanceof ConfigurationError) return error.message;
      throw error;
    }
  }

  /**
   * Run `work` in one read transaction: every read in it sees the file as
   * one commit left it, so a head checked there (`checkHead`) is the head of
   * the rows read after it. Read one by one, a row another writer appended
   * between the check and the read would be read unchecked. Without a
   * signer there is no check to hold the reads to, and no transaction.
   */
  read<T>(work: () => T): T {
    // Inside a transaction every read already sees one commit's file: a savepoint would add nothing but its cost.
    return this.signer === undefined || this.db.inTransaction ? work() : (this.#transaction.deferred(work) as T);
  }

  /**
   * The rows the file ends on that no signature covers; undefined when the
   * head is signed, or names a key without a signature that verifies (a
   * forgery or another key's row, never signed over). Throws once the rows
   * below the head were found not to chain (`refuse`).
   */
  unsignedTail(): UnsignedTail | undefined {
    return this.#unsignedTail(true);
  }

  /**
   * `named`: the rows are named to an operator who checks them, so a forged
   * signature must not hide one of them (thrown). Else the tail of an open
   * that made the key just now (undefined past any signature).
   */
  #unsignedTail(named: boolean): UnsignedTail | undefined {
    // Rows that do not chain are not a tail to sign over.
    if (this.#refusal !== undefined) throw this.#refusal;
    const head = this.#headRow.get();
    if (head === undefined || head.signature !== null || head.key_id !== null) return undefined;
    // The tail begins past the last row that carries a signature: one that does not verify (a forgery given a made-up
    // signature) would be signed over without being among the rows named to the operator who checks them.
    const signed = this.#lastSignedRow();
    if (signed !== undefined && !this.#vouches(signed)) {
      // A key made just now signs over a history older than every key, never rows past another key's signature: with
      // the key moved aside, a writer without it would have the next open sign its forged rows over.
      if (!named) return undefined;
      throw notSignedOver(`${signed.table} #${signed.seq}`);
    }
    return { from: (signed?.seq ?? 0) + 1, through: head.seq, head: head.hash };
  }

  /**
   * Sign over the history a key made just now finds: rows no key ever
   * signed, taken as they stand (a history older than the key), with a
   * signed `journal-signed` event that says `because`; never rows past
   * another key's signature. Returns the rows signed over.
   */
  adoptHistory(because: string): UnsignedTail | undefined {
    return this.#signOver(because, false, undefined);
  }

  /**
   * Sign over the unsigned rows the file ends on, on an operator's word once
   * they have checked them: only while the file still ends on the row whose
   * hash they were shown (`UnsignedTail.head`), which chains every row before
   * it. A row appended, or one rewritten, between their check and this would
   * otherwise be vouched for unseen. Returns the rows signed over.
   */
  signOverTail(because: string, head: string): UnsignedTail | undefined {
    return this.#signOver(because, true, head);
  }

  #signOver(because: string, named: boolean, checkedHead: string | undefined): UnsignedTail | undefined {
    const vouched = this.#vouched;
    try {
      return this.write(() => {
        const head = this.#headRow.get();
        const tail = this.#unsignedTail(named);
        if (head === undefined || tail === undefined) return undefined;
        if (checkedHead !== undefined && checkedHead !== head.hash) {
          throw new ConfigurationError('head', `is not the row the journal ends on now (rows #${tail.from}–#${tail.through}, ending on ${head.hash}): rows were appended or rewritten since they were named; check them again`);
        }
        this.#vouched = { seq: head.seq, hash: head.hash };
        // The walk stopped at the last signed row: the rows past it are handed over now that the key vouches for them
        // (a claim among them keeps its action in doubt), before the signature over them is appended.
        this.#walkedAt = undefined;
        this.append('events', { at: Date.now(), type: 'journal-signed', body: JSON.stringify({ signedThrough: head.seq, because }) });
        return tail;
      });
    } catch (error) {
      // Not signed over after all (a full disk, a busy lock): without the signature the head is not vouched for.
      this.#vouched = vouched;
      throw error;
    }
  }


  #fileHead(): ChainHead {
    return this.read(() => this.#checkedFileHead());
  }

  #checkedFileHead(): ChainHead {
    // The version is read before the head: a commit between the two leaves the cache stale, never wrong.
    const version = this.dataVersion();
    // The rows up to the head first: a head that is signed vouches for them only if they chain up to it.
    this.catchUp();
    if (this.#refusal !== undefined) throw this.#refusal;
    const row = this.#headRow.get();
    if (row === undefined) return { seq: 0, hash: GENESIS_HASH };
    const head = { seq: row.seq, hash: row.hash };
    if (this.signer === undefined) return head;
    // The head query names one of two rows that share the head's number (the other in another table), and the
    // readers take both: a forged receipt numbered as the claim a crash left open would settle it.
    if (this.#numbered.get({ seq: row.seq }) !== 1) throw notSigned(`ends on two rows numbered ${row.seq} (${row.table} #${row.seq} and a row of another table)`);
    // The signature of a head is checked once. The row is hashed at every read: a stored hash and signature copied
    // from another signed row verify, and so do the ones a row edited in place after the check keeps.
    if (!this.#vouches(row)) throw notSigned(`ends on a row that is not signed with the journal's key (${row.table} #${row.seq})`);
    this.#vouched = head;
    this.#cached = { head, version };
    return head;
  }

  /** Whether the row `head` names, read from the file again, hashes to its stored hash. */
  #fileRowHashesAsStored(head: HeadRow): boolean {
    let select = this.#rowBySeq.get(head.table);
    if (select === undefined) this.#rowBySeq.set(head.table, (select = this.db.prepare(`SELECT * FROM ${head.table} WHERE seq = ?`)));
    const row = select.get(head.seq);
    return row !== undefined && hashesAsStored(head.table, row);
  }

  /** Fix the head for the rest of this transaction (compaction deletes rows before it appends). */
  pinHead(): ChainHead {
    if (!this.db.inTransaction) throw new Error('ChainStore.pinHead must run inside write()');
    return (this.#written ??= this.linkHead());
  }

  append(table: ChainedTable, fields: RowFields): ChainHead {
    if (!this.db.inTransaction) throw new Error('ChainStore.append must run inside write()');
    const previous = this.linkHead();
    const seq = previous.seq + 1;
    // With a signer every commit ends on a signed row, claims and events included: a row after the last
    // signature would otherwise be covered by none, and a writer without the key could forge it.
    const signed = this.signer !== undefined && this.#signing;
    const values: (string | number | null)[] = [];
    for (const column of HASHED_COLUMNS[table]) {
      const given = column === 'key_id' ? (signed ? this.signer.keyId : null) : (fields[column] ?? null);
      // SQLite stores a lone surrogate as U+FFFD: hash the text it will read back, or the row would not verify.
      values.push(typeof given === 'string' ? given.toWellFormed() : given);
    }
    // The values in insert order are the hashed columns in order: hashed as they are bound.
    const hash = hashColumnValues(previous.hash, table, seq, values);
    values.push(seq, previous.hash, hash);
    if (this.signer !== undefined) values.push(signed ? this.signer.sign(hash) : null);
    // Bound as separate arguments: better-sqlite3 reads each from the call directly, where it would fetch
    // an array's elements one by one through V8's API (about 0.2 µs a row).
    this.#insert(table).run(...values);
    if (table === 'checkpoints') this.#floorWritten = Number(fields.through_seq);
    for (const observer of this.#observers) observer.appended(table, seq, values);
    this.#written = { seq, hash };
    this.#headUnsigned = this.signer !== undefined && !signed;
    return this.#written;
  }

  /** The insert of one table's rows: its hashed columns in order, then the chain's (the signature when signing is on). */
  #insert(table: ChainedTable): Database.Statement {
    let statement = this.#inserts.get(table);
    if (statement === undefined) {
      const columns = [...HASHED_COLUMNS[table], 'seq', 'prev_hash', 'hash', ...(this.signer === undefined ? [] : ['signature'])];
      statement = this.db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      this.#inserts.set(table, statement);
    }
    return statement;
  }
}
