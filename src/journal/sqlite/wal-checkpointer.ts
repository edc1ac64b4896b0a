import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** SQLite's own rule: a checkpoint once this many frames of the log are not yet copied into the database file. */
export const CHECKPOINT_FRAMES = 1000;
/**
 * The connection still checkpoints itself once its log holds this many
 * frames. A checkpoint running beside commits never leaves the log empty
 * (frames arrive while it copies), and only a log copied whole starts over
 * from its beginning: once commits pause, the worker copies it whole, but
 * under writes that never pause this bounds the log's file (40 MB of 4 KiB
 * pages), and the one checkpoint on the connection that then lets it start
 * over copies little, the worker having copied the rest. (The file is not
 * cut back when the log starts over: cutting 40 MB stalled a commit here
 * for 30 ms.)
 */
export const CEILING_FRAMES = 10_000;
/** How often, in commits, the log's length is read (`PRAGMA wal_checkpoint(NOOP)`, about 3 µs). */
const CHECK_EVERY_COMMITS = 16;
/** How long commits must pause before what the log still holds is copied (once a worker runs). */
const IDLE_MS = 20;
/** How long `close()` waits for a checkpoint under way to end before it leaves the worker behind. */
const CLOSE_WAIT_MS = 2_000;

/**
 * `state[REQUEST]`: what the worker is asked to do; `state[CLOSED]`: 1 once
 * its connection is closed; `state[BOOT]`: 1 once the worker began, 2 when
 * `close()` came first (the worker then opens nothing, and nobody waits).
 */
const REQUEST = 0;
const CLOSED = 1;
const BOOT = 2;
const IDLE = 0;
const CHECKPOINT = 1;
const CLOSE = 2;
const BEGAN = 1;
const CANCELLED = 2;

/** `PRAGMA wal_checkpoint(NOOP)`, which reports the log without copying a frame, came with SQLite 3.51.0; an older one reads the mode as PASSIVE. */
const NOOP_SINCE = [3, 51, 0] as const;

/**
 * The worker: its own connection to the file, a passive checkpoint each
 * time it is asked, and nothing else. A passive checkpoint never waits for
 * a lock nor takes one a writer needs, so the journal's commits go on
 * while it copies pages and waits for the disk.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const state = new Int32Array(workerData.state);
let db;
try {
  if (Atomics.compareExchange(state, ${BOOT}, 0, ${BEGAN}) === 0 && Atomics.load(state, ${REQUEST}) !== ${CLOSE}) {
    const Database = require(workerData.driver);
    db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
    db.pragma('synchronous = NORMAL');
    for (;;) {
      Atomics.wait(state, ${REQUEST}, ${IDLE});
      if (Atomics.load(state, ${REQUEST}) === ${CLOSE}) break;
      db.pragma('wal_checkpoint(PASSIVE)');
      Atomics.compareExchange(state, ${REQUEST}, ${CHECKPOINT}, ${IDLE});
    }
  }
} finally {
  try { db?.close(); } finally {
    Atomics.store(state, ${CLOSED}, 1);
    Atomics.notify(state, ${CLOSED});
  }
}
`;

/**
 * WAL checkpoints off the committing thread. With SQLite's default a
 * commit that takes the log past 1,000 frames copies them into the
 * database file itself, and waits for the disk twice (the log, then the
 * file): milliseconds in which the event loop, and every call in flight,
 * stands still, once every few hundred calls. Here the connection leaves
 * that to a worker thread with a connection of its own: every few commits
 * the log's length is read (a checkpoint of mode NOOP, which copies
 * nothing: a descriptor of this module's own on the `-shm` file, once
 * closed, would drop every lock SQLite holds on it in this process), and
 * past the same 1,000 frames the worker (started then, the first time) runs
 * a passive checkpoint; once commits pause, it copies whatever the log still holds,
 * so that the log starts over. Durability is the same: a checkpoint copies
 * only committed frames, and a crash during one leaves the log, which
 * SQLite replays.
 *
 * When the worker cannot run (it failed to start, or stopped), or SQLite
 * is older than that mode, the connection checkpoints itself again, as
 * SQLite does by default.
 *
 * For `synchronous = NORMAL` only. Under FULL every commit waits for the
 * disk already, and a checkpoint's syncs on another thread beside them
 * made those commits slower, not faster: there the connection keeps its
 * checkpoints.
 */
export class WalCheckpointer {
  readonly #db: Database.Database;
  readonly #file: string;
  readonly #state = new Int32Array(new SharedArrayBuffer(12));
  readonly #readLog: Database.Statement<[], { busy: number; log: number; checkpointed: number }> | undefined;
  #worker: Worker | undefined;
  #commits = 0;
  /** The commit count when the idle timer last looked: unchanged a whole `IDLE_MS` later, commits have paused. */
  #commitsWhenIdle = 0;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  /** `db`: a connection to `file` in WAL mode with `synchronous = NORMAL`. */
  constructor(db: Database.Database, file: string) {
    this.#db = db;
    this.#file = file;
    if (!reportsLogWithoutCopying(db)) {
      this.#stopped = true;
      return;
    }
    this.#readLog = db.prepare('PRAGMA wal_checkpoint(NOOP)');
    db.pragma(`wal_autocheckpoint = ${CEILING_FRAMES}`);
  }

  /** Whether a worker runs: started once the log reached `CHECKPOINT_FRAMES`, until `close()`. */
  get started(): boolean {
    return this.#worker !== undefined;
  }

  /** Call after every commit: every few, the log's length is read, and a checkpoint asked for when it is due. */
  committed(): void {
    if (this.#stopped) return;
    this.#commits += 1;
    if (this.#worker !== undefined) this.#idle ??= setTimeout(this.#whenIdle, IDLE_MS).unref();
    if (this.#commits % CHECK_EVERY_COMMITS === 0) this.#request('due');
  }

  /** Stop the worker, its connection closed, before the journal closes its own (the last to close empties the log). */
  close(): void {
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#stopped = true;
    const worker = this.#worker;
    if (worker === undefined) return;
    this.#worker = undefined;
    Atomics.store(this.#state, REQUEST, CLOSE);
    Atomics.notify(this.#state, REQUEST);
    // A worker still starting opens nothing once it sees this: no wait for its start.
    if (Atomics.compareExchange(this.#state, BOOT, 0, CANCELLED) !== 0) Atomics.wait(this.#state, CLOSED, 0, CLOSE_WAIT_MS);
    void worker.terminate();
  }

  /**
   * Ask the worker (started the first time) for a checkpoint, unless one
   * runs: on a check, once `CHECKPOINT_FRAMES` wait to be copied; once idle,
   * when the log holds that many and any wait.
   */
  #request(when: 'due' | 'idle'): void {
    if (Atomics.load(this.#state, REQUEST) !== IDLE) return;
    const log = this.#logNow();
    // Busy (another connection checkpoints) or not in WAL mode: nothing to ask for now.
    if (log === undefined || log.busy !== 0 || log.log < 0) return;
    const uncopied = log.log - log.checkpointed;
    if (when === 'due' ? uncopied < CHECKPOINT_FRAMES : log.log < CHECKPOINT_FRAMES || uncopied <= 0) return;
    if (this.#worker === undefined && !this.#start()) return;
    Atomics.store(this.#state, REQUEST, CHECKPOINT);
    Atomics.notify(this.#state, REQUEST);
  }

  /**
   * Once commits pause, whatever the log still holds is copied: a checkpoint
   * that ends before the next commit lets the log start over from its
   * beginning, which one running beside commits never does.
   */
  readonly #whenIdle = (): void => {
    this.#idle = undefined;
    if (this.#stopped) return;
    // Still committing, or a checkpoint still running (it may end before the log does): look again later.
    if (this.#commits !== this.#commitsWhenIdle || Atomics.load(this.#state, REQUEST) !== IDLE) {
      this.#commitsWhenIdle = this.#commits;
      this.#idle = setTimeout(this.#whenIdle, IDLE_MS).unref();
      return;
    }
    this.#request('idle');
  };

  /** The log's frames and those copied, as SQLite reports them; undefined if it cannot say (this runs after a commit, which must not throw). */
  #logNow(): { busy: number; log: number; checkpointed: number } | undefined {
    try {
      return this.#readLog?.get();
    } catch {
      return undefined;
    }
  }

  #start(): boolean {
    try {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), file: this.#file, state: this.#state.buffer },
      });
      worker.unref();
      worker.on('error', () => undefined);
      worker.on('exit', () => {
        if (!this.#stopped) this.#checkpointOnConnection();
      });
      this.#worker = worker;
      return true;
    } catch {
      this.#checkpointOnConnection();
      return false;
    }
  }

  /** Back to SQLite's default: the connection checkpoints itself. */
  #checkpointOnConnection(): void {
    this.#stopped = true;
    if (this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${CHECKPOINT_FRAMES}`);
  }
}

/** Whether this SQLite reads `wal_checkpoint(NOOP)` as a report, not as a passive checkpoint. */
export function reportsLogWithoutCopying(db: Database.Database): boolean {
  const version = String(db.prepare('SELECT sqlite_version()').pluck().get()).split('.').map(Number);
  for (const [index, wanted] of NOOP_SINCE.entries()) {
    const part = version[index] ?? 0;
    if (part !== wanted) return part > wanted;
  }
  return true;
}
