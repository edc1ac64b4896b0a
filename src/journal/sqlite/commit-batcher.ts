import type { ChainStore } from './chain-store.js';

interface QueuedWrite {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for the SQLite journal. better-sqlite3 commits
 * synchronously, so writes that arrive in the same turn of the event loop
 * (the claims of calls dispatched together, the settles of calls that
 * finished together) are queued and committed in one immediate transaction
 * at the next turn: one commit, one WAL sync point, for all of them.
 *
 * - `commit(work)` resolves only after the transaction holding `work`
 *   committed: a claim is durable before its effect runs, as before.
 * - `defer(work)` returns at once; the write joins the next batch, which
 *   runs at the latest `maxDelayMs` later (a record-tier receipt, which
 *   guards no effect). It is durable within that batch.
 * - `flush()` commits whatever is queued now, synchronously: reads and the
 *   journal's other writes call it first, so they see every queued write
 *   in order, and `close()` loses none.
 *
 * Each write of a batch of several runs in its own savepoint: one that
 * throws is rolled back and rejected alone, the others in the batch still
 * commit. A batch of one (a call at a time) needs no savepoint: its
 * transaction is rolled back instead.
 */
export class CommitBatcher {
  readonly #store: ChainStore;
  readonly #maxDelayMs: number;
  #queue: QueuedWrite[] = [];
  #immediate: ReturnType<typeof setImmediate> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(store: ChainStore, maxDelayMs: number) {
    this.#store = store;
    this.#maxDelayMs = maxDelayMs;
  }

  /** Whether writes are waiting for the next commit. */
  get pending(): boolean {
    return this.#queue.length > 0;
  }

  commit<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.#immediate ??= setImmediate(() => this.flush());
    });
  }

  defer(work: () => void, onError: (error: unknown) => void): void {
    this.#queue.push({ work, resolve: () => undefined, reject: onError });
    this.#timer ??= setTimeout(() => this.flush(), this.#maxDelayMs);
  }

  flush(): void {
    if (this.#immediate !== undefined) clearImmediate(this.#immediate);
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#immediate = undefined;
    this.#timer = undefined;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    const isolate = batch.length > 1;
    try {
      this.#store.write(() => {
        for (const entry of batch) {
          try {
            outcomes.push({ ok: true, value: isolate ? this.#store.attempt(entry.work) : entry.work() });
          } catch (error) {
            // Alone in its batch, the write fails its transaction: the rollback below rejects it.
            if (!isolate) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      // The commit failed (a busy lock past its timeout, a full disk), or the batch's one write threw: nothing in the batch is durable.
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, index) => {
      const outcome = outcomes[index];
      if (outcome?.ok === true) entry.resolve(outcome.value);
      else entry.reject(outcome?.error);
    });
  }
}
