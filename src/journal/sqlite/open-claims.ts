import type Database from 'better-sqlite3';
import type { AppendObserver, ChainStore } from './chain-store.js';
import { openClaimOfAction } from './journal-claims.js';
import { HASHED_COLUMNS, type ChainedTable } from './schema.js';

export interface OpenClaim {
  readonly seq: number;
  readonly claim_id: string;
  readonly key: string;
}

interface ClaimState extends OpenClaim {
  readonly state: string;
}

/** The last claim row applied. */
interface Seen {
  readonly seq: number;
  readonly claimId: string;
}

/** How to take back one row of a transaction that rolled back: the key's entry and the last row seen before it. */
interface Undo {
  readonly key: string;
  readonly previous: OpenClaim | undefined;
  readonly seen: Seen;
}

const CLAIM_COLUMNS = HASHED_COLUMNS.claims;
const CLAIM_ID = CLAIM_COLUMNS.indexOf('claim_id');
const KEY = CLAIM_COLUMNS.indexOf('key');
const STATE = CLAIM_COLUMNS.indexOf('state');
const RECEIPT_CLAIM_ID = HASHED_COLUMNS.receipts.indexOf('claim_id');
const RECEIPT_KEY = HASHED_COLUMNS.receipts.indexOf('key');
const CHECKPOINT_THROUGH = HASHED_COLUMNS.checkpoints.indexOf('through_seq');

/** How a receipt that names its claim reads among the claim rows: it settles that claim. */
const SETTLED_BY_RECEIPT = 'receipt';

/**
 * The claims whose latest row is still `claimed`, every process's, mirrored
 * from the file. A claim is closed by a later claim row of its key
 * (`discarded`, `released`, or `settled` in journals written before receipts
 * closed claims) or by the receipt that names it: an effect-tier call's
 * receipt carries its claim id, so settling costs no row of its own. Claims
 * are append-only and a closed claim never reopens (a key claimed again gets
 * a new row), so the mirror reads only the claim rows and claim receipts
 * past the last one it saw: the cost of a check follows the rows written
 * since the previous one, not the history of the action (an action repeated
 * a million times would otherwise be scanned a million rows deep per call).
 *
 * While `PRAGMA data_version` reads as it did when the mirror last matched
 * the file, no other connection has committed since, and the only new claim
 * rows and claim receipts are the ones this connection appended: the store tells the mirror of
 * each as it is inserted, so a claim costs no read. Such a row is applied at
 * once (a later write of the same batch must see it) and taken back if its
 * transaction rolls back. Every claim row this connection writes goes
 * through `ChainStore.append`; compaction deletes only rows before the
 * oldest open claim, which leaves the open claims as they are.
 *
 * When another connection committed, the rows are read from the file. The
 * last row seen is checked by its claim id: when it is gone or another row
 * took its number (its transaction rolled back, or a compaction dropped it),
 * the mirror is rebuilt from the file. With a signer the mirror reads no
 * rows itself: the store walks each row another connection commits and
 * hands it over (`ChainStore.catchUp`), and only those rows are applied. The file has no index by key: the
 * mirror is the journal's only view of the open claims (`unresolved()`,
 * compaction), so no claim row pays for one.
 *
 * The claims this journal instance holds (claimed and not yet settled or
 * discarded: its calls in flight) are not in doubt, and calls of one action
 * run side by side; every other open claim of an action refuses the action.
 * The mirror keeps the latter by action as the claims open and close and as
 * the instance takes and lets go of its own (`hold`, `release`), so a claim's
 * check looks its action up instead of walking every open claim of it: with
 * 64 calls of one action in flight, that walk cost each claim about 5 µs.
 */
export class OpenClaims implements AppendObserver {
  readonly #store: ChainStore;
  readonly #open = new Map<string, OpenClaim>();
  /** The claims this instance holds, by claim id, with the key each was claimed under. */
  readonly #held = new Map<string, string>();
  /** The open claims no one here holds, by action digest, then by key (the order they came in doubt). */
  readonly #doubted = new Map<string, Map<string, OpenClaim>>();
  readonly #between: Database.Statement<[{ from: number; before: number }], ClaimState>;
  /** The last claim row applied, or undefined before the first read of the file. */
  #seen: Seen | undefined;
  /** `PRAGMA data_version` when the mirror last matched the file. */
  #version: number | undefined;
  /** The rows of the open transaction applied so far, oldest first. */
  #uncommitted: Undo[] = [];

  /** The mirror of the claims `store` sees; the store tells it of every claim row it appends. */
  constructor(store: ChainStore) {
    this.#store = store;
    this.#between = store.db.prepare(
      `SELECT seq, claim_id, key, state FROM claims WHERE seq >= @from AND seq < @before
       UNION ALL SELECT seq, claim_id, key, '${SETTLED_BY_RECEIPT}' FROM receipts WHERE claim_id IS NOT NULL AND seq >= @from AND seq < @before
       ORDER BY seq`,
    );
    store.observe(this);
  }

  /**
   * Bring the mirror up to the file and return the open claims. A claim's
   * check calls it inside the write transaction that will append (so no
   * other process's row can land between the check and the claim).
   */
  refresh(): ReadonlyMap<string, OpenClaim> {
    this.#catchUp(Number.MAX_SAFE_INTEGER);
    return this.#open;
  }

  /**
   * An open claim of the action `actionDigest` that this instance does not
   * hold (a crash left it, or another process runs the action), as of the
   * last `refresh`; undefined when there is none.
   */
  doubtedClaimOf(actionDigest: string): OpenClaim | undefined {
    // Keys are `actionDigest:callId`, indexed by the text before their first colon: a digest holding a colon is found
    // by the keys' prefix, as any key that begins with it would be.
    if (actionDigest.includes(':')) return openClaimOfAction(this.#open, actionDigest, (claim) => this.#isHeld(claim));
    const doubted = this.#doubted.get(actionDigest);
    return doubted === undefined ? undefined : doubted.values().next().value;
  }

  /**
   * This instance claims `key` under `claimId`: from now on the claim is its
   * own, in flight and not in doubt. Called before the claim row is appended,
   * and held until `release`, across a transaction that rolls back and runs
   * the claim again.
   */
  hold(key: string, claimId: string): void {
    this.#held.set(claimId, key);
    const open = this.#open.get(key);
    if (open?.claim_id === claimId) this.#forget(open);
  }

  /**
   * This instance no longer holds the claim (settled, discarded, or its
   * receipt failed to commit): if it is still open under the key it was
   * claimed under, it is in doubt.
   */
  release(claimId: string): void {
    const key = this.#held.get(claimId);
    if (key === undefined) return;
    this.#held.delete(claimId);
    const open = this.#open.get(key);
    if (open?.claim_id === claimId) this.#doubt(open);
  }

  appended(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): void {
    const row = claimStateOf(table, seq, values);
    if (row === undefined) return;
    // The rows other connections committed before this one first: the file's, up to (not including) it.
    this.#catchUp(seq);
    this.#uncommitted.push({ key: row.key, previous: this.#open.get(row.key), seen: this.#seen ?? { seq: 0, claimId: '' } });
    this.#apply(row);
  }

  ended(committed: boolean): void {
    if (!committed) {
      for (let index = this.#uncommitted.length - 1; index >= 0; index -= 1) {
        const undo = this.#uncommitted[index] as Undo;
        this.#put(undo.key, undo.previous);
        this.#seen = undo.seen;
      }
    }
    if (this.#uncommitted.length > 0) this.#uncommitted = [];
  }

  walked(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): void {
    if (table === 'checkpoints') {
      this.#closeThrough(Number(values[CHECKPOINT_THROUGH]));
      return;
    }
    const row = claimStateOf(table, seq, values);
    if (row !== undefined) this.#apply(row);
  }

  /**
   * A compaction another connection ran dropped the rows through `through`:
   * it keeps every claim open in its view, so a claim numbered among them
   * was settled there, by a row the walk never reaches. Left open here, its
   * action would be refused until a restart, under a claim no longer listed.
   */
  #closeThrough(through: number): void {
    for (const [key, claim] of this.#open) if (claim.seq <= through) this.#put(key, undefined);
  }

  /** Read the claim rows numbered below `before` that other connections committed since the mirror last matched the file. */
  #catchUp(before: number): void {
    // With a signer the rows come walked: read from the file, a row added under a number already walked would be applied.
    if (this.#store.signer !== undefined) {
      this.#store.catchUp();
      return;
    }
    // Read before the rows: a commit that lands in between moves it again, and is read next time.
    const version = this.#store.dataVersion();
    if (this.#seen !== undefined && version === this.#version) return;
    this.#readFile(before);
    // Only once every row was read: a read that failed part way is taken up again from the last row applied.
    this.#version = version;
  }

  #readFile(before: number): void {
    const seen = this.#seen;
    if (seen === undefined) {
      this.#rebuild(before);
      return;
    }
    // Read at once: the rows since the last read are few, and one `all` costs less than an iterator's step per row.
    const rows = this.#between.all({ from: seen.seq, before });
    let first = 0;
    if (seen.seq > 0) {
      const row = rows[0];
      if (row?.seq !== seen.seq || row.claim_id !== seen.claimId) {
        this.#rebuild(before);
        return;
      }
      first = 1;
    }
    for (let index = first; index < rows.length; index += 1) this.#apply(rows[index] as ClaimState);
  }

  /** One pass over every claim row in order: a claim is open while its key's latest row is still `claimed`. */
  #rebuild(before: number): void {
    this.#open.clear();
    this.#doubted.clear();
    this.#seen = { seq: 0, claimId: '' };
    for (const row of this.#between.iterate({ from: 0, before })) this.#apply(row);
  }

  #apply(row: ClaimState): void {
    if (row.state === 'claimed') this.#put(row.key, { seq: row.seq, claim_id: row.claim_id, key: row.key });
    // A receipt settles only the claim it names: one naming another claim of the key leaves it open (fail closed).
    else if (row.state !== SETTLED_BY_RECEIPT || this.#open.get(row.key)?.claim_id === row.claim_id) this.#put(row.key, undefined);
    this.#seen = { seq: row.seq, claimId: row.claim_id };
  }

  /** Set the key's open claim (undefined: none), and the key's place among the doubted claims of its action with it. */
  #put(key: string, claim: OpenClaim | undefined): void {
    const previous = this.#open.get(key);
    if (previous !== undefined) this.#forget(previous);
    if (claim === undefined) {
      this.#open.delete(key);
      return;
    }
    this.#open.set(key, claim);
    if (!this.#isHeld(claim)) this.#doubt(claim);
  }

  /** Held only under the key it was claimed under: a row of another key that names the claim id is in doubt. */
  #isHeld(claim: OpenClaim): boolean {
    return this.#held.get(claim.claim_id) === claim.key;
  }

  #doubt(claim: OpenClaim): void {
    const action = actionOf(claim.key);
    if (action === undefined) return;
    let doubted = this.#doubted.get(action);
    if (doubted === undefined) this.#doubted.set(action, (doubted = new Map<string, OpenClaim>()));
    doubted.set(claim.key, claim);
  }

  #forget(claim: OpenClaim): void {
    const action = actionOf(claim.key);
    const doubted = action === undefined ? undefined : this.#doubted.get(action);
    if (doubted?.get(claim.key) !== claim) return;
    doubted.delete(claim.key);
    if (doubted.size === 0) this.#doubted.delete(action as string);
  }
}

/** The action digest a key names (`actionDigest:callId`): the text before its first colon; undefined for a key without one. */
function actionOf(key: string): string | undefined {
  const colon = key.indexOf(':');
  return colon < 0 ? undefined : key.slice(0, colon);
}

/** An appended row as the mirror reads it: a claim row, or a receipt that names its claim; undefined for any other row. */
function claimStateOf(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): ClaimState | undefined {
  if (table === 'claims') return { seq, claim_id: String(values[CLAIM_ID]), key: String(values[KEY]), state: String(values[STATE]) };
  if (table !== 'receipts' || values[RECEIPT_CLAIM_ID] === null) return undefined;
  return { seq, claim_id: String(values[RECEIPT_CLAIM_ID]), key: String(values[RECEIPT_KEY]), state: SETTLED_BY_RECEIPT };
}
