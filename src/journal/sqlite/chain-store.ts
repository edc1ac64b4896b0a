import type Database from 'better-sqlite3';
import { ConfigurationError } from '../../core/internal.js';
import { CHAIN_HEAD_SQL, type ChainRow } from './chain-rows.js';
import type { AppendObserver, ChainHead } from './chain-types.js';
import { ChainWalk } from './chain-walk.js';
import { CommitSigning, DEFAULT_SIGN_EVERY_MS } from './commit-signing.js';
import { KeyVouching, type UnsignedTail } from './key-vouching.js';
import { SignOver } from './sign-over.js';
import { GENESIS_HASH, hashColumnValues, type RowFields } from './row-hash.js';
import type { ReceiptSigner } from './receipt-signer.js';
import { HASHED_COLUMNS, type ChainedTable } from './schema.js';

export type { AppendObserver, ChainHead } from './chain-types.js';

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
  /** With a signer: what its key vouches for in the file. */
  readonly #vouching: KeyVouching | undefined;
  /** With a signer, the rows other connections commit, walked before the readers see them; the compaction floor. */
  readonly #walk: ChainWalk;
  /** With a signer: the `journal-signed` events it appends. */
  readonly #signOver: SignOver | undefined;
  readonly #inserts = new Map<ChainedTable, Database.Statement>();
  readonly #dataVersion: Database.Statement<[], number>;
  readonly #transaction: Database.Transaction<(work: () => unknown) => unknown>;
  /** The head as of our last commit, valid while no other connection has committed since. */
  #cached: { head: ChainHead; version: number } | undefined;
  /** The last row the open transaction appended (or the head it pinned); undefined outside `write`. */
  #written: ChainHead | undefined;
  /** Why this store writes, replays and anchors nothing: rows below the head that do not chain (`refuse`). */
  #refusal: ConfigurationError | undefined;
  /** Whether the last row this transaction appended carries no signature (the head of a batch must). */
  #headUnsigned = false;
  /** Whether `append` signs: always, except for the rows of a batch before its last write (`writeBatch`). */
  #signing = true;
  readonly #afterCommit: (() => void)[] = [];
  readonly #beforeClose: (() => void)[] = [];
  readonly #observers: AppendObserver[] = [];
  /** `PRAGMA data_version` as read when the open transaction began; undefined outside `write`. */
  #version: number | undefined;

  /** With a signer: whether each commit's last row is signed or sealed, and this store's last commit. */
  readonly signing: CommitSigning | undefined;

  constructor(db: Database.Database, signer: ReceiptSigner | undefined, signEveryMs = DEFAULT_SIGN_EVERY_MS) {
    this.db = db;
    this.signer = signer;
    this.signing = signer === undefined ? undefined : new CommitSigning(signer, signEveryMs);
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.#transaction = db.transaction((work: () => unknown) => work());
    this.#head = db.prepare<[], ChainHead>(CHAIN_HEAD_SQL);
    const vouching = signer === undefined ? undefined : new KeyVouching(db, signer);
    this.#vouching = vouching;
    this.#walk = new ChainWalk(db, this.#observers);
    this.#signOver =
      vouching === undefined || this.signing === undefined
        ? undefined
        : new SignOver(this, { vouching, signing: this.signing, forgetWalk: () => this.#walk.forget(), refusal: () => this.#refusal, ownHead: () => this.#cached?.head });
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
    this.#headUnsigned = false;
    this.signing?.began();
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
      this.#walk.ended(true);
      for (const observer of this.#observers) observer.ended(true);
      if (written !== undefined) {
        this.#cached = { head: written, version };
        this.signing?.committed(written);
        if (this.signer !== undefined) this.#walk.committed(written, version);
        for (const listener of this.#afterCommit) listener();
      }
      return result;
    } catch (error) {
      this.#version = undefined;
      this.#written = undefined;
      this.#cached = undefined;
      this.#walk.ended(false);
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

  /** Called after every commit that appended rows (the anchor keeper, the WAL checkpointer). */
  onCommit(listener: () => void): void {
    this.#afterCommit.push(listener);
  }

  /** Called before `close()` closes the connection (the WAL checkpointer's: the last connection to close empties the log). */
  onClose(listener: () => void): void {
    this.#beforeClose.push(listener);
  }

  close(): void {
    for (const listener of this.#beforeClose) listener();
    this.db.close();
  }

  /**
   * Be told of every row appended from now on, and of how its transaction ended (the open-claims mirror, the run
   * index); with a signer, of every row walked too, from the first walk on: an observer that came later would never
   * be told of the rows before it.
   */
  observe(observer: AppendObserver): void {
    if (this.#walk.walked !== undefined) throw new Error('ChainStore.observe must come before the first walk');
    this.#observers.push(observer);
  }

  /**
   * With a signer, walk the rows other connections committed since the last
   * walk (the first walk: every row) and hand each to the observers, the
   * readers' only source of them (`ChainWalk`); false once the rows do not
   * chain (`refuse`). Without a signer there is nothing to walk: the readers
   * read the file.
   */
  catchUp(): boolean {
    const vouching = this.#vouching;
    if (vouching !== undefined && this.#refusal === undefined && !this.#walk.isCurrent(this.dataVersion())) {
      // The version is read before the rows: a commit that lands in between moves it again, and is walked next time.
      this.read(() => this.#walk.walk(this.dataVersion(), vouching, (problem) => this.refuse(problem)));
    }
    return this.#refusal === undefined;
  }

  /**
   * With a signer, throw unless `row`, read from `table` again after the
   * walk (a receipt to replay), is the row the walk covered (see
   * `ChainWalk.rowIntact`): from then on the journal refuses (`refuse`).
   */
  checkRow(table: ChainedTable, row: ChainRow): void {
    if (!this.rowIntact(table, row)) throw this.#refusal as ConfigurationError;
  }

  /** What `checkRow` checks, for a reader that shows what it can instead of throwing. */
  rowIntact(table: ChainedTable, row: ChainRow): boolean {
    if (this.#vouching === undefined) return true;
    const intact = this.#walk.rowIntact(table, row, this.#written, this.#vouching);
    if (!intact) this.refuse(`${table} #${row.seq}: changed or added after it was walked`);
    return intact;
  }

  /** The last row number a compaction dropped (`ChainWalk.floor`). */
  get compactedThrough(): number {
    return this.#walk.floor;
  }

  /**
   * With a signer, throw unless a compaction dropped the row numbered `seq`
   * that the walk handed over and `table` no longer holds as it was walked:
   * a writer without the key deleted or changed it otherwise (a receipt,
   * and the call it recorded would run again). The journal refuses from then on.
   */
  checkDropped(table: ChainedTable, seq: number): void {
    if (!this.rowDropped(table, seq)) throw this.#refusal as ConfigurationError;
  }

  /** What `checkDropped` checks, for a reader that shows what it can instead of throwing: false once the journal refuses. */
  rowDropped(table: ChainedTable, seq: number): boolean {
    if (this.signer === undefined || seq <= this.#walk.floor) return true;
    this.refuse(`${table} #${seq}: deleted or changed after it was walked`);
    return false;
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

  /** The rows the file ends on that no signature covers (`KeyVouching.unsignedTail`); throws once the journal refuses. */
  unsignedTail(): UnsignedTail | undefined {
    if (this.#refusal !== undefined) throw this.#refusal;
    return this.#signOver?.unsignedTail(true);
  }

  /** Sign over the history a key made just now finds, as it stands: rows no key ever signed. Returns the rows signed over. */
  adoptHistory(because: string): UnsignedTail | undefined {
    return this.#signOver?.tail(because, false, undefined);
  }

  /**
   * Sign over the unsigned rows the file ends on, on an operator's word, only
   * while the file still ends on the row whose hash they were shown
   * (`UnsignedTail.head`, which chains every row before it): a row appended
   * or rewritten since would be vouched for unseen. Returns the rows signed over.
   */
  signOverTail(because: string, head: string): UnsignedTail | undefined {
    return this.#signOver?.tail(because, true, head);
  }

  /** Sign the sealed row this store's last commit ended on over, if the file still ends on it (`SignOver.sealedHead`). */
  signSealedHead(): void {
    this.#signOver?.sealedHead();
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
    if (this.#vouching === undefined) return this.head();
    const row = this.#vouching.headRow();
    if (row === undefined) return { seq: 0, hash: GENESIS_HASH };
    const head = this.#vouching.checkedHead(row);
    this.#cached = { head, version };
    return head;
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
    if (this.signing !== undefined) values.push(signed ? this.signing.vouch(hash) : null);
    // Bound as separate arguments: better-sqlite3 reads each from the call directly, where it would fetch
    // an array's elements one by one through V8's API (about 0.2 µs a row).
    this.#insert(table).run(...values);
    if (table === 'checkpoints') this.#walk.checkpointWritten(Number(fields.through_seq));
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
