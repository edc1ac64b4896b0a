import { ConfigurationError } from '../../core/internal.js';
import type { ChainStore } from './chain-store.js';
import { describeAnchorCase } from './describe-anchor-case.js';
import { makeAnchor, readJournalAnchor, writeJournalAnchor, type JournalAnchor } from './journal-anchor.js';
import { GENESIS_HASH } from './row-hash.js';
import { CHAINED_TABLES, journalIdOf } from './schema.js';

/** Commits within this window share one anchor write. */
const BATCH_MS = 25;

/**
 * Keeps the anchor of one journal file up to date: written at open, within
 * BATCH_MS of every commit (one write for all the commits in between) and
 * at close. Each write runs inside an immediate transaction, so SQLite's
 * write lock orders the anchor writes of every process sharing the file:
 * the head read there is the file's, and the anchor never goes backwards
 * (one a process with a stale view wrote later would name fewer rows; it is
 * left alone). Before it advances an anchor, the keeper checks the file
 * still holds the anchored head; once it does not (a cut tail, a rewritten
 * or replaced file), the anchor is left as it is, as evidence, and the
 * problem is reported once: `verify` with the anchor names it.
 */
export class AnchorKeeper {
  readonly path: string;
  readonly #store: ChainStore;
  readonly #report: (problem: string) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Set once the anchor no longer matches: this keeper writes no more. */
  #mismatch: string | undefined;
  /** The last write failure reported, so a failing disk is reported once, not every batch. */
  #failure: string | undefined;

  constructor(store: ChainStore, path: string, report: (problem: string) => void) {
    this.#store = store;
    this.path = path;
    this.#report = report;
  }

  /** The problem that stopped this keeper, if any. */
  get mismatch(): string | undefined {
    return this.#mismatch;
  }

  /** After a commit that appended rows. */
  committed(): void {
    if (this.#timer !== undefined || this.#mismatch !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, BATCH_MS);
    // A pending write never keeps a process alive; close() writes it anyway.
    this.#timer.unref?.();
  }

  /** Write now, if the file moved past the anchor. A failure is reported, never thrown: a call never fails for its anchor. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#mismatch !== undefined) return;
    try {
      const mismatch = this.#store.write(() => this.#advance());
      this.#failure = undefined;
      if (mismatch !== undefined) {
        this.#mismatch = mismatch;
        this.#report(`the journal no longer matches its anchor ${this.path}: ${mismatch}; the anchor is kept as it is. Run \`toolgate audit verify\`; once you have looked, move the anchor aside and the next commit writes a new one.`);
      }
    } catch (error) {
      const failure = error instanceof Error ? error.message : String(error);
      if (failure !== this.#failure) {
        // A head the journal's key does not vouch for is never anchored under it (see `ChainStore.linkHead`).
        this.#report(
          error instanceof ConfigurationError
            ? `the journal anchor ${this.path} stays where the signed chain ended: ${failure}`
            : `the journal anchor ${this.path} could not be written (${failure}); the next commit tries again`,
        );
      }
      this.#failure = failure;
    }
  }

  /** Inside the write lock: the mismatch found, or undefined once the anchor is current. */
  #advance(): string | undefined {
    const db = this.#store.db;
    const journalId = journalIdOf(db);
    // Never anchor, under the journal's key, a head the journal would not link onto.
    const head = this.#store.linkHead();
    let current: JournalAnchor | undefined;
    try {
      current = readJournalAnchor(this.path);
    } catch (error) {
      return `the anchor file is unreadable (${error instanceof Error ? error.message : String(error)})`;
    }
    if (journalId === undefined) return 'the journal has lost its id';
    if (current !== undefined) {
      const mismatch = this.#mismatchOf(current, journalId, head.seq);
      if (mismatch !== undefined) return mismatch;
      // Another process anchored this head, or a later one, already.
      if (current.rows >= head.seq) return undefined;
    }
    writeJournalAnchor(this.path, makeAnchor({ journal: journalId, rows: head.seq, head: head.hash, at: Date.now() }, this.#store.signer));
    return undefined;
  }

  /**
   * The cheap comparison a writer can afford every batch: the file's id and
   * the hash at the anchored position (or, once compaction removed that row,
   * a checkpoint past it, which compaction checked against this anchor).
   * `verify` walks the whole chain.
   */
  #mismatchOf(anchor: JournalAnchor, journalId: string, rows: number): string | undefined {
    const db = this.#store.db;
    if (anchor.journal !== journalId) return describeAnchorCase('replaced', anchor, { rows, journalId });
    if (anchor.rows === 0) return anchor.head === GENESIS_HASH ? undefined : describeAnchorCase('differs', anchor, { rows });
    if (rows < anchor.rows) return describeAnchorCase('cut-tail', anchor, { rows });
    for (const table of CHAINED_TABLES) {
      const row = db.prepare<[number], { hash: string }>(`SELECT hash FROM ${table} WHERE seq = ?`).get(anchor.rows);
      if (row !== undefined) return row.hash === anchor.head ? undefined : describeAnchorCase('differs', anchor, { rows });
    }
    const compacted = db.prepare<[number], { found: number }>(`SELECT 1 AS found FROM checkpoints WHERE through_seq >= ? LIMIT 1`).get(anchor.rows);
    // Missing in the middle of a longer chain, with no compaction past it: the history was rewritten.
    return compacted === undefined ? describeAnchorCase('differs', anchor, { rows }) : undefined;
  }
}
