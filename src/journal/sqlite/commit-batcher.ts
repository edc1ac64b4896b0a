import type { ChainStore } from './chain-store.js';

/** Settled once: a reaction on it runs as a microtask. */
const SETTLED = Promise.resolve();

interface QueuedWrite {
  readonly work: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for the SQLite journal. better-sqlite3 commits
 * synchronously, so a commit is never in flight while JavaScript runs:
 * writes queued in the same turn (the claims of calls dispatched together)
 * are committed together once that turn's synchronous work and promise
 * reactions are done, in one immediate transaction: one commit for all of
 * them, and no wait for the event loop when a call comes alone.
 *
 * - `commit(work)` resolves only after the transaction holding `work`
 *   committed: a claim is durable before its effect runs.
 * - `defer(work, onCommitted, onError)` returns at once; the write joins
 *   the next commit (the next claim's, say), or runs `maxDelayMs` later at
 *   the latest (a settled call's receipt). It is durable within that batch,
 *   and `onCommitted` is called once that batch committed.
 * - `flush()` commits whatever is queued now, synchronously: reads and the
 *   journal's other writes call it first, so they see every queued write
 *   in order, and `close()` loses none.
 *
 * A batch is one transaction (see `ChainStore.writeBatch`). When it cannot
 * commit as one (a write threw), nothing of it is written and each write
 * runs again in its own transaction: the one that fails is rolled back and
 * rejected alone, the others commit. A write may therefore run twice, the
 * first time in a transaction that was rolled back, so it keeps no state of
 * its own outside the file but what running it again leaves the same.
 */
export class CommitBatcher {
  readonly #store: ChainStore;
  readonly #maxDelayMs: number;
  #queue: QueuedWrite[] = [];
  #scheduled = false;
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
      if (this.#scheduled) return;
      this.#scheduled = true;
      // After the promise reactions queued so far: the other calls of this turn queue their claims first.
      // A reaction on a settled promise, not `queueMicrotask`, which wraps every callback in an async resource.
      void SETTLED.then(() => {
        this.#scheduled = false;
        this.flush();
      });
    });
  }

  defer(work: () => void, onCommitted: () => void, onError: (error: unknown) => void): void {
    this.#queue.push({ work, resolve: onCommitted, reject: onError });
    this.#timer ??= setTimeout(() => this.flush(), this.#maxDelayMs);
  }

  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    let values: unknown[] | undefined;
    try {
      values = this.#store.writeBatch(batch.map((entry) => entry.work));
    } catch (error) {
      // The commit failed (a busy lock past its timeout, a full disk): nothing in the batch is durable.
      for (const entry of batch) entry.reject(error);
      return;
    }
    if (values === undefined) {
      for (const entry of batch) this.#commitAlone(entry);
      return;
    }
    batch.forEach((entry, index) => entry.resolve(values[index]));
  }

  #commitAlone(entry: QueuedWrite): void {
    let value: unknown;
    try {
      value = this.#store.write(entry.work);
    } catch (error) {
      entry.reject(error);
      return;
    }
    entry.resolve(value);
  }
}
