import { ConfigurationError } from '../../core/internal.js';
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
 *
 * With a signer most commits are sealed, not signed (`CommitSigning`):
 * the batch `maxDelayMs` commits on its own, once calls stopped coming, is
 * signed, and so is the last at `close()`; a sealed commit that writing stops
 * after is signed over `signEveryMs` later (`ChainStore.signSealedHead`).
 */
export class CommitBatcher {
  readonly #store: ChainStore;
  readonly #maxDelayMs: number;
  #queue: QueuedWrite[] = [];
  #scheduled = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Armed while this store's last commit ended on a sealed row. */
  #sealTimer: ReturnType<typeof setTimeout> | undefined;

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
    this.#timer ??= setTimeout(() => {
      // Nothing else came to commit with it: the end of a burst of calls, signed.
      this.#store.signing?.signNext();
      this.flush();
    }, this.#maxDelayMs);
  }

  /** Commit what is queued, signed, sign a sealed head this store left, and arm no timer again. */
  close(): void {
    this.#store.signing?.signNext();
    this.flush();
    if (this.#sealTimer !== undefined) clearTimeout(this.#sealTimer);
    this.#sealTimer = undefined;
    this.#signSealedHead();
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
    if (values === undefined) for (const entry of batch) this.#commitAlone(entry);
    else batch.forEach((entry, index) => entry.resolve(values[index]));
    // Committed one by one, only the first of the writes is signed: the last may be sealed, and is signed over too.
    const signing = this.#store.signing;
    if (signing?.last.sealed === true) this.#armSealTimer(signing.everyMs);
  }

  #armSealTimer(delayMs: number): void {
    if (this.#sealTimer !== undefined) return;
    this.#sealTimer = setTimeout(() => this.#signOnceIdle(), delayMs);
    // A process that ends without `close()` leaves the sealed rows to the next commit signed, as a crash does.
    this.#sealTimer.unref();
  }

  /** Sign a sealed head once no commit came for `signEveryMs`; while commits come, one in every `signEveryMs` is signed anyway. */
  #signOnceIdle(): void {
    this.#sealTimer = undefined;
    const signing = this.#store.signing;
    if (signing?.last.sealed !== true) return;
    // Queued writes commit signed on their own timer, which signs the sealed rows before them; looked at again after,
    // since that commit may fail (a lock held past the busy timeout) and leave the sealed head as it was.
    if (this.pending) {
      this.#armSealTimer(signing.everyMs);
      return;
    }
    const idleMs = performance.now() - signing.last.at;
    if (idleMs < signing.everyMs) {
      this.#armSealTimer(signing.everyMs - idleMs);
      return;
    }
    this.#signSealedHead();
  }

  #signSealedHead(): void {
    try {
      this.#store.signSealedHead();
    } catch (error) {
      // The next commit is signed instead; a journal that refuses says why at every call.
      if (!(error instanceof ConfigurationError)) console.warn('toolgate: signing the journal head failed; the next commit is signed instead', error);
    }
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
