import type Database from 'better-sqlite3';
import { ConfigurationError } from '../../core/internal.js';
import { hashesAsStored, lastRowSql, type ChainRow } from './chain-rows.js';
import type { ChainHead } from './chain-types.js';
import { GENESIS_HASH } from './row-hash.js';
import { keyMade, type ReceiptSigner } from './receipt-signer.js';
import { CHAINED_TABLES, type ChainedTable } from './schema.js';

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

export interface HeadRow extends ChainHead {
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
 * What the journal's key vouches for in the file: a row signed with it
 * whose signature verifies (checked once per head) and that hashes to its
 * stored hash (at every read: a stored hash and signature copied from
 * another signed row verify, and so do the ones a row edited in place
 * after the check keeps), or a head an operator signed over.
 */
export class KeyVouching {
  readonly #db: Database.Database;
  readonly #signer: ReceiptSigner;
  readonly #headRow: Database.Statement<[], HeadRow>;
  readonly #lastSigned: Database.Statement<[], number | null>;
  /** How many rows, across the chained tables, carry a sequence number. */
  readonly #numbered: Database.Statement<[{ seq: number }], number>;
  /** The rows, across the chained tables, that carry a sequence number, as the head is read. */
  readonly #rowAt: Database.Statement<[{ seq: number }], HeadRow>;
  /** A whole row of a table by its number (the head, hashed again at every read). */
  readonly #rowBySeq = new Map<ChainedTable, Database.Statement<[number], ChainRow>>();
  /** The last head read from the file that the key vouches for (its signature verified once, not per read). */
  #vouched: ChainHead | undefined;

  constructor(db: Database.Database, signer: ReceiptSigner) {
    this.#db = db;
    this.#signer = signer;
    this.#headRow = db.prepare<[], HeadRow>(lastRowSql('seq, hash, key_id, signature'));
    this.#lastSigned = db.prepare<[], number | null>(`SELECT max(seq) FROM (${CHAINED_TABLES.map((table) => `SELECT max(seq) AS seq FROM ${table} WHERE signature IS NOT NULL`).join(' UNION ALL ')})`).pluck();
    this.#numbered = db.prepare<[{ seq: number }], number>(`SELECT ${CHAINED_TABLES.map((table) => `(SELECT count(*) FROM ${table} WHERE seq = @seq)`).join(' + ')}`).pluck();
    this.#rowAt = db.prepare<[{ seq: number }], HeadRow>(CHAINED_TABLES.map((table) => `SELECT seq, hash, key_id, signature, '${table}' AS "table" FROM ${table} WHERE seq = @seq`).join(' UNION ALL '));
  }

  /** The row the file ends on, with its key id and signature; undefined for an empty chain. */
  headRow(): HeadRow | undefined {
    return this.#headRow.get();
  }

  /** How many rows, across the chained tables, carry the number `seq`. */
  numbered(seq: number): number {
    return this.#numbered.get({ seq }) ?? 0;
  }

  /**
   * The file's head, thrown unless the key vouches for it. The head query
   * names one of two rows that share the head's number (the other in
   * another table), and the readers take both: a forged receipt numbered
   * as the claim a crash left open would settle it.
   */
  checkedHead(row: HeadRow): ChainHead {
    if (this.numbered(row.seq) !== 1) throw notSigned(`ends on two rows numbered ${row.seq} (${row.table} #${row.seq} and a row of another table)`);
    if (!this.#vouches(row)) throw notSigned(`ends on a row that is not signed with the journal's key (${row.table} #${row.seq})`);
    return (this.#vouched = { seq: row.seq, hash: row.hash });
  }

  /**
   * The last row the key vouches for: the file's head when it does, else the
   * last signed row when its signature verifies (rows written while signing
   * was off, or forged, follow it: those below it are still vouched for, and
   * the open claims among them listed), else undefined.
   */
  lastVouched(): ChainHead | undefined {
    const head = this.#headRow.get();
    if (head === undefined) return { seq: 0, hash: GENESIS_HASH };
    if (this.#vouches(head)) return (this.#vouched = { seq: head.seq, hash: head.hash });
    const signed = this.#lastSignedRow();
    return signed !== undefined && signed.seq < head.seq && this.#vouches(signed) ? { seq: signed.seq, hash: signed.hash } : undefined;
  }

  /** The head vouched for from now on (an operator signs it over), or again the one before (the signing over did not commit). */
  vouchFor(head: ChainHead | undefined): void {
    this.#vouched = head;
  }

  /** The head vouched for last: what `vouchFor` takes back. */
  get vouched(): ChainHead | undefined {
    return this.#vouched;
  }

  /**
   * The rows the file ends on that no signature covers; undefined when the
   * head is signed, or names a key without a signature that verifies (a
   * forgery or another key's row, never signed over). `named`: the rows are
   * named to an operator who checks them, so a forged signature must not
   * hide one of them (thrown). Else the tail of an open that made the key
   * just now (undefined past any signature).
   */
  unsignedTail(named: boolean): UnsignedTail | undefined {
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

  /** The last row that carries a signature, whichever key made it (or none); undefined when no row does. */
  #lastSignedRow(): HeadRow | undefined {
    const seq = this.#lastSigned.get() ?? 0;
    return seq > 0 ? this.#rowAt.get({ seq }) : undefined;
  }

  /** Whether the key vouches for `row`: signed or sealed with it, or the head vouched before, and hashing as stored. */
  #vouches(row: HeadRow): boolean {
    const vouched = this.#vouched?.seq === row.seq && this.#vouched.hash === row.hash;
    return (vouched || (row.key_id === this.#signer.keyId && row.signature !== null && keyMade(this.#signer, row.hash, row.signature) === true)) && this.#fileRowHashesAsStored(row);
  }

  /** Whether the row `head` names, read from the file again, hashes to its stored hash. */
  #fileRowHashesAsStored(head: HeadRow): boolean {
    let select = this.#rowBySeq.get(head.table);
    if (select === undefined) this.#rowBySeq.set(head.table, (select = this.#db.prepare(`SELECT * FROM ${head.table} WHERE seq = ?`)));
    const row = select.get(head.seq);
    return row !== undefined && hashesAsStored(head.table, row);
  }
}
