import type Database from 'better-sqlite3';
import type { ChainRow } from './chain-rows.js';
import type { AppendObserver, ChainStore } from './chain-store.js';
import { HASHED_COLUMNS, type ChainedTable } from './schema.js';

const RUN_ID = HASHED_COLUMNS.receipts.indexOf('run_id');

/** Runs this connection saw committed, at most: a gateway serving many sessions forgets the oldest and inserts again (a lookup). */
const MAX_KNOWN_RUNS = 4096;

/**
 * Where each run's receipts begin: a `runs` row names a run's first receipt,
 * so `recordings()` reads the receipts from there on. It stands in for an
 * index of receipts by run, which cost every receipt a page of its own in
 * each commit: the row is written once per run, in the transaction of its
 * first receipt (`INSERT OR IGNORE`: another process may have written it).
 * The table is derived, not chained: it only says where to start reading,
 * and the rows read are the chained receipts themselves. With a signer each
 * is checked as a receipt found by its key is (`ChainStore.checkRow`): they
 * are the answers a replay gives.
 */
export class RunIndex implements AppendObserver {
  readonly #store: ChainStore;
  readonly #insert: Database.Statement<[string, number]>;
  readonly #firstReceipts: Database.Statement<[{ runId: string }], ChainRow & { body: string }>;
  /** Runs whose row is in the file: committed by this connection, or found there. */
  readonly #known = new Set<string>();
  /** Runs noted in the open transaction: known once it commits. */
  #noted: string[] = [];

  constructor(store: ChainStore) {
    this.#store = store;
    this.#insert = store.db.prepare(`INSERT OR IGNORE INTO runs (run_id, first_seq) VALUES (?, ?)`);
    this.#firstReceipts = store.db.prepare(`SELECT * FROM receipts WHERE seq >= (SELECT first_seq FROM runs WHERE run_id = @runId) AND run_id = @runId ORDER BY seq`);
    store.observe(this);
  }

  /** The bodies of a run's receipts, in order. */
  bodies(runId: string): string[] {
    return this.#store.read(() => {
      // A receipt changed in place, or forged under a number no walk reaches (where the run index may say the run
      // begins), would be replayed as the call's answer.
      this.#store.checkHead();
      return this.#firstReceipts.all({ runId }).map((row) => {
        this.#store.checkRow('receipts', row);
        return row.body;
      });
    });
  }

  appended(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): void {
    if (table !== 'receipts') return;
    const runId = values[RUN_ID];
    if (typeof runId !== 'string' || this.#known.has(runId) || this.#noted.includes(runId)) return;
    this.#insert.run(runId, seq);
    this.#noted.push(runId);
  }

  ended(committed: boolean): void {
    if (this.#noted.length === 0) return;
    if (committed) {
      if (this.#known.size + this.#noted.length > MAX_KNOWN_RUNS) this.#known.clear();
      for (const runId of this.#noted) this.#known.add(runId);
    }
    this.#noted = [];
  }
}
