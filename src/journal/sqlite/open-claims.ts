import type Database from 'better-sqlite3';

export interface OpenClaim {
  readonly seq: number;
  readonly claim_id: string;
  readonly key: string;
}

interface ClaimState extends OpenClaim {
  readonly state: string;
}

/**
 * The claims whose latest row is still `claimed`, every process's, mirrored
 * from the file. Claims are append-only and a closed claim never reopens (a
 * key claimed again gets a new row), so `refresh` reads only the claim rows
 * past the last one it saw: the cost of a check follows the rows written
 * since the previous one, not the history of the action (an action repeated
 * a million times would otherwise be scanned a million rows deep per call).
 *
 * The last row seen is checked by its claim id on every refresh: when it is
 * gone or another row took its number (its transaction rolled back, or a
 * compaction dropped it), the mirror is rebuilt from the file. The file has
 * no index by key: the mirror is the journal's only view of the open claims
 * (`unresolved()`, compaction), so no claim row pays for one.
 */
export class OpenClaims {
  readonly #open = new Map<string, OpenClaim>();
  readonly #since: Database.Statement<[number], ClaimState>;
  /** The last claim row applied, or undefined before the first refresh. */
  #seen: { readonly seq: number; readonly claimId: string } | undefined;

  constructor(db: Database.Database) {
    this.#since = db.prepare(`SELECT seq, claim_id, key, state FROM claims WHERE seq >= ? ORDER BY seq`);
  }

  /**
   * Bring the mirror up to the file and return the open claims. A claim's
   * check calls it inside the write transaction that will append (so no
   * other process's row can land between the check and the claim).
   */
  refresh(): ReadonlyMap<string, OpenClaim> {
    const seen = this.#seen;
    if (seen === undefined) return this.#rebuild();
    // Read at once: the rows since the last refresh are few (a claim and a settle per call), and one
    // `all` costs less than an iterator's step per row.
    const rows = this.#since.all(seen.seq);
    let first = 0;
    if (seen.seq > 0) {
      const row = rows[0];
      if (row?.seq !== seen.seq || row.claim_id !== seen.claimId) return this.#rebuild();
      first = 1;
    }
    for (let index = first; index < rows.length; index += 1) this.#apply(rows[index] as ClaimState);
    return this.#open;
  }

  /** One pass over every claim row in order: a claim is open while its key's latest row is still `claimed`. */
  #rebuild(): ReadonlyMap<string, OpenClaim> {
    this.#open.clear();
    this.#seen = { seq: 0, claimId: '' };
    for (const row of this.#since.iterate(0)) this.#apply(row);
    return this.#open;
  }

  #apply(row: ClaimState): void {
    if (row.state === 'claimed') this.#open.set(row.key, { seq: row.seq, claim_id: row.claim_id, key: row.key });
    else this.#open.delete(row.key);
    this.#seen = { seq: row.seq, claimId: row.claim_id };
  }
}
