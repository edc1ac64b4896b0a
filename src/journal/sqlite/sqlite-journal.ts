import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { ConfigurationError, type Journal, type JournalClaim, type JournalEvent, type JournalPrepareInput, type JournalPrepareResult } from '../../core/internal.js';
import type { JournalSettleInput, RecordedResult, RecordingQuery, UnresolvedClaim } from '../../core/internal.js';
import type { ChainRow } from './chain-rows.js';
import type { ChainHead, ChainStore } from './chain-store.js';
import type { UnsignedTail } from './key-vouching.js';
import { CommitBatcher } from './commit-batcher.js';
import { compactJournal, type CompactOptions, type CompactResult } from './compact-journal.js';
import { readJournalAnchor, type JournalAnchor } from './journal-anchor.js';
import type { SqliteJournalSettings } from './create-sqlite-journal.js';
import { OpenClaims } from './open-claims.js';
import { ReceiptKeys } from './receipt-keys.js';
import { RunIndex } from './run-index.js';
import { checkResolveClaimOptions, claimBodyOf, listedClaimRow, mirroredClaimRow, unresolvedClaimError, unresolvedClaimOf, type ClaimRow, type ResolveClaimOptions } from './journal-claims.js';
import { promised } from './promised.js';
import { decodeStoredResult, encodeData, type StoredResult } from './encode-journal-body.js';
import { ResultBlobs } from './result-blobs.js';
import { journalIdOf } from './schema.js';
import { verifyAgainstAnchor, type AnchoredVerifyResult } from './verify-against-anchor.js';
import { verifyChain, type VerifyOptions, type SqliteVerifyResult } from './verify-chain.js';

interface PendingClaim {
  readonly tier: 'record' | 'effect';
  readonly runId: string | undefined;
}

/** The longest a settled receipt waits for its batch to commit. */
const MAX_BATCH_DELAY_MS = 10;

/**
 * The embedded journal. Writes are group-committed (see `CommitBatcher`):
 * claims that arrive together share one immediate transaction, and a claim
 * is committed before `prepare` resolves; settles join the next batch (the
 * next claim's commit, at most `MAX_BATCH_DELAY_MS` later) without holding
 * up a claim. Reads commit what is queued first, so they see every write in
 * order.
 */
export class SqliteJournal implements Journal {
  readonly path: string;
  readonly coverage: 'tiered' | 'all';
  readonly #store: ChainStore;
  readonly #settings: SqliteJournalSettings;
  readonly #pending = new Map<string, PendingClaim>();
  readonly #batcher: CommitBatcher;
  readonly #openClaims: OpenClaims;
  readonly #runs: RunIndex;
  readonly #receiptKeys: ReceiptKeys;
  /** Receipts queued for the next batch, by key: a `prepare` of the key reads them without waiting for the commit. */
  readonly #queued = new Map<string, StoredResult>();
  readonly #blobs: ResultBlobs;
  readonly #holder = `pid ${process.pid} on ${hostname()}`;
  readonly #claimBySeq: Database.Statement<[number], ClaimRow & ChainRow>;
  #closed = false;

  /** Whether this open made the signing key (there was none yet), rather than finding one. */
  readonly signingKeyCreated: boolean;

  constructor(path: string, store: ChainStore, settings: SqliteJournalSettings) {
    this.path = path;
    this.signingKeyCreated = settings.signingKeyCreated === true;
    this.#store = store;
    this.coverage = settings.coverage;
    this.#settings = settings;
    this.#batcher = new CommitBatcher(store, MAX_BATCH_DELAY_MS);
    const db = store.db;
    this.#openClaims = new OpenClaims(store);
    this.#runs = new RunIndex(store);
    this.#receiptKeys = new ReceiptKeys(store);
    this.#claimBySeq = db.prepare(`SELECT * FROM claims WHERE seq = ?`);
    this.#blobs = new ResultBlobs(db);
  }

  /** The public key every row is signed with (PEM), when signing is on. */
  get publicKey(): string | undefined {
    return this.#store.signer?.publicKeyPem;
  }

  prepare(input: JournalPrepareInput): Promise<JournalPrepareResult> {
    return promised(() => {
      this.#open();
      // A record-tier call guards no effect: it writes no claim and does not wait for a commit.
      const queued = this.#queued.get(input.key);
      if (queued !== undefined) return { status: 'recorded', recorded: decodeStoredResult(queued.body, (digest) => queued.blobs.get(digest)) } as const;
      // The claim id is fixed here: a batch that cannot commit as one runs its writes again, and the
      // claim must come out the same.
      const claimId = randomUUID();
      // The record tier writes nothing: its head check and lookup share a read transaction instead of a write.
      if (input.tier === 'record') return this.#store.read(() => this.#claim(input, claimId));
      return this.#batcher.commit(() => this.#claim(input, claimId));
    });
  }

  /** Look the key up and, for the effect tier, append the claim (inside a batch's transaction); the record tier only reads. */
  #claim(input: JournalPrepareInput, claimId: string): JournalPrepareResult {
    this.#store.checkHead();
    const recorded = this.#receiptKeys.bodyOf(input.key);
    if (recorded !== undefined) {
      this.#letGoOfEarlierRun(claimId);
      return { status: 'recorded', recorded: this.#blobs.recorded(recorded) };
    }
    if (input.tier === 'effect') {
      const open = this.#openClaims.refresh();
      // Never re-run silently: the earlier attempt may have touched the world.
      const sameKey = open.get(input.key);
      // The same action under another call id (a client retrying after a crash): refused too, while a claim
      // this instance does not hold is open. Its own calls in flight are not in doubt, and run side by side.
      const doubted = sameKey ?? this.#openClaims.doubtedClaimOf(input.actionDigest);
      if (doubted !== undefined) {
        this.#letGoOfEarlierRun(claimId);
        const row = listedClaimRow(this.#store, doubted, this.#claimBySeq.get(doubted.seq)) ?? mirroredClaimRow(doubted);
        return { status: 'refused', error: unresolvedClaimError(input.toolName, row) };
      }
      // Held before the row is appended, so the mirror never takes this instance's own claim for one in doubt.
      this.#openClaims.hold(input.key, claimId);
      try {
        this.#store.append('claims', { at: Date.now(), claim_id: claimId, key: input.key, state: 'claimed', body: encodeData(claimBodyOf(input, this.#holder)) });
      } catch (error) {
        this.#openClaims.release(claimId);
        throw error;
      }
    }
    this.#pending.set(claimId, { tier: input.tier, runId: input.runId });
    return { status: 'claimed', claim: { key: input.key, claimId } };
  }

  /** A claim run again alone after its batch rolled back was held, and pending, the first time: a run that claims nothing lets go of both. */
  #letGoOfEarlierRun(claimId: string): void {
    this.#openClaims.release(claimId);
    this.#pending.delete(claimId);
  }

  settle(claim: JournalClaim | undefined, input: JournalSettleInput): Promise<void> {
    return promised(() => {
      this.#open();
      const pending = claim === undefined ? undefined : this.#pending.get(claim.claimId);
      if (claim !== undefined && pending === undefined) throw new ConfigurationError('journal.settle', 'names a claim this journal does not hold open');
      const key = claim?.key ?? `${input.receipt.actionDigest ?? ''}:${input.receipt.callId}`;
      const stored = this.#blobs.stored(input, this.#settings.maxRecordedValueBytes);
      if (claim !== undefined) this.#pending.delete(claim.claimId);
      const write = (): void => {
        this.#blobs.put(stored.blobs);
        // The receipt of an effect-tier call names its claim, and so settles it (see `OpenClaims`).
        this.#store.append('receipts', {
          at: Date.now(),
          key,
          claim_id: pending?.tier === 'effect' ? (claim?.claimId ?? null) : null,
          run_id: pending?.runId ?? null,
          tool: input.receipt.tool,
          action_digest: input.receipt.actionDigest ?? null,
          body: stored.body,
        });
      };
      // A receipt recorded directly resolves once its batch committed.
      if (claim === undefined) return this.#batcher.commit(write);
      this.#deferReceipt(key, stored, pending?.tier === 'effect' ? claim.claimId : undefined, write);
      return undefined;
    });
  }

  /**
   * A settled call's receipt does not wait for a commit, and never holds up
   * the next call's claim: it joins the next batch (that claim's commit, at
   * most MAX_BATCH_DELAY_MS later). Its claim was committed before the effect
   * ran; a crash before the receipt commits leaves that claim unresolved, so
   * the call is reported and never run again on its own. Until then a
   * `prepare` of the same key finds the receipt here, and the claim, still
   * open in the file, stays held by this instance (`OpenClaims.hold`): a call
   * of the same action claiming in the same batch, ahead of the receipt, does
   * not doubt it.
   */
  #deferReceipt(key: string, stored: StoredResult, claimId: string | undefined, write: () => void): void {
    this.#queued.set(key, stored);
    const settled = (): void => {
      if (this.#queued.get(key) === stored) this.#queued.delete(key);
      if (claimId === undefined) return;
      // Committed, the receipt closed the claim; failed, the claim stays open and is in doubt from now on.
      this.#openClaims.release(claimId);
    };
    this.#batcher.defer(write, settled, (error) => {
      settled();
      console.warn('toolgate: committing a settled receipt failed; its claim stays unresolved', error);
    });
  }

  discard(claim: JournalClaim): Promise<void> {
    return promised(() => {
      this.#open();
      const pending = this.#pending.get(claim.claimId);
      this.#pending.delete(claim.claimId);
      if (pending?.tier === 'effect') {
        // Until the discarded row commits the claim is open, and no longer this instance's.
        this.#openClaims.release(claim.claimId);
        return this.#batcher.commit(() => {
          this.#store.append('claims', { at: Date.now(), claim_id: claim.claimId, key: claim.key, state: 'discarded', body: '{}' });
        });
      }
      return undefined;
    });
  }

  lookup(key: string): Promise<RecordedResult | undefined> {
    return promised(() => {
      this.#open();
      this.#batcher.flush();
      return this.#store.read(() => {
        this.#store.checkHead();
        const body = this.#receiptKeys.bodyOf(key);
        return body === undefined ? undefined : this.#blobs.recorded(body);
      });
    });
  }

  append(event: JournalEvent): Promise<void> {
    return promised(() => {
      this.#open();
      if (typeof event.type !== 'string' || event.type.length === 0 || event.type.length > 128) throw new ConfigurationError('event.type', 'must be a string of 1–128 characters');
      const at = Number.isFinite(event.at) ? event.at : Date.now();
      return this.#batcher.commit(() => {
        this.#store.append('events', { at, type: event.type, body: encodeData(event.data) });
      });
    });
  }

  /**
   * Commit what is queued now. A reader on another connection (the console's
   * audit, `toolgate audit`) sees a record-tier receipt only once its batch
   * commits; one in this process calls this first to see every call that
   * has returned.
   */
  flush(): void {
    this.#open();
    this.#batcher.flush();
  }

  /** Claims left open by a crash (or held by another live process). This instance's in-flight claims are not listed. */
  unresolved(): Promise<readonly UnresolvedClaim[]> {
    return promised(() => {
      this.#open();
      return this.unresolvedNow();
    });
  }

  /** Synchronous form, for reporting at open. */
  unresolvedNow(): UnresolvedClaim[] {
    this.#batcher.flush();
    // A claim is unresolved while its latest row is still `claimed`: the mirror knows which. The mirror and the rows in
    // one read: a claim another process settles and compacts away in between would be a row the file lost, refused.
    const rows = this.#store.read(() => {
      const open = [...this.#openClaims.refresh().values()].filter((claim) => !this.#pending.has(claim.claim_id)).sort((left, right) => left.seq - right.seq);
      return open.map((claim) => listedClaimRow(this.#store, claim, this.#claimBySeq.get(claim.seq)));
    });
    return rows.filter((row) => row !== undefined).map(unresolvedClaimOf);
  }

  /**
   * An operator's answer to an unresolved claim, appended to the chain as a
   * `released` row that records it (`resolution`, `by`, `note`). From then on
   * the claim is not listed and the action is not refused for it.
   */
  resolveClaim(claimId: string, options: ResolveClaimOptions): Promise<void> {
    return promised(() => {
      this.#open();
      checkResolveClaimOptions(options);
      this.#batcher.flush();
      // An operator's word is signed, not sealed (see `CommitSigning`).
      this.#store.signing?.signNext();
      this.#store.write(() => {
        const open = this.#openClaims.refresh();
        const latest = [...open.values()].find((entry) => entry.claim_id === claimId);
        if (latest === undefined) throw new ConfigurationError('claimId', 'does not name an unresolved claim');
        const body = { resolution: options.resolution, by: options.by, ...(options.note === undefined ? {} : { note: options.note }) };
        this.#store.append('claims', { at: Date.now(), claim_id: claimId, key: latest.key, state: 'released', body: encodeData(body) });
      });
    });
  }

  /**
   * Walk the chain. With `anchor` (an anchor file's contents,
   * `readJournalAnchor`), also check that this is the file the anchor was
   * taken from, that the anchor carries the journal key's signature when
   * the journal verifies with a key, and that the anchored head is still in
   * the chain; `result.anchor` names what was found. Rows past the anchor
   * pass unless `strictAnchor`.
   */
  verify(options: VerifyOptions & { readonly anchor: JournalAnchor; readonly strictAnchor?: boolean }): Promise<AnchoredVerifyResult>;
  verify(options?: VerifyOptions): Promise<SqliteVerifyResult>;
  verify(options: VerifyOptions & { readonly anchor?: JournalAnchor; readonly strictAnchor?: boolean } = {}): Promise<SqliteVerifyResult> {
    return promised(() => {
      this.#open();
      this.#batcher.flush();
      const { anchor, strictAnchor, ...walk } = options;
      if (anchor === undefined) return verifyChain(this.#store.db, { verifier: this.#settings.verifier, ...walk });
      return verifyAgainstAnchor(this.#store.db, anchor, { verifier: this.#settings.verifier, ...walk, ...(strictAnchor === undefined ? {} : { strict: strictAnchor }) });
    });
  }

  /** The file's id, which an anchor names (undefined only if someone removed it). */
  get journalId(): string | undefined {
    this.#open();
    return journalIdOf(this.#store.db);
  }

  /** The anchor this journal keeps, and the problem that stopped it, if any. */
  get anchor(): { readonly path: string; readonly mismatch: string | undefined } | undefined {
    const keeper = this.#settings.anchor;
    return keeper === undefined ? undefined : { path: keeper.path, mismatch: keeper.mismatch };
  }

  recordings(query: RecordingQuery): Promise<readonly RecordedResult[]> {
    return promised(() => {
      this.#open();
      this.#batcher.flush();
      return this.#blobs.recordedAll(() => this.#runs.bodies(query.runId));
    });
  }

  /**
   * Why this journal writes, replays and anchors nothing more: its key does
   * not vouch for the row the file ends on, or the rows below it do not
   * verify (see `ChainStore.linkHead`). Undefined when it does, or without a
   * key.
   */
  headProblem(): string | undefined {
    this.#open();
    return this.#store.headProblem();
  }

  /** The rows the file ends on that no signature covers (see `ChainStore.unsignedTail`); undefined when its head is signed. */
  unsignedTail(): UnsignedTail | undefined {
    this.#open();
    this.#batcher.flush();
    return this.#store.unsignedTail();
  }

  /**
   * Sign over the unsigned rows this signed journal ends on, with a
   * `journal-signed` event naming `by`: an operator's answer, once they have
   * checked those rows (`verify()` names the first), to a journal that
   * refuses its head (`headProblem()`) because rows were written without the
   * key (signing turned off for a while, an open that made the key and
   * stopped before it signed the history over, a schema 1 file). Returns the
   * rows signed over, or undefined when there were none. `head` is the hash
   * of the row they checked the tail ends on (`unsignedTail().head`): rows
   * appended or rewritten since are not signed over unseen (refused,
   * `CONFIGURATION_INVALID`). A head that names a key, or whose number two
   * rows hold, is never signed over.
   */
  signOverUnsignedTail(by: string, head: string): Promise<UnsignedTail | undefined> {
    return promised(() => {
      this.#open();
      if (this.#store.signer === undefined) throw new ConfigurationError('journal', 'has no signing key: open it with `sign` to sign its rows over');
      this.#batcher.flush();
      return this.#store.signOverTail(`signed over by ${by}`, head);
    });
  }

  /** The chain head, to anchor outside the file (detects a truncated tail). */
  head(): ChainHead {
    this.#open();
    this.#batcher.flush();
    return this.#store.head();
  }

  /** With a kept anchor and no `expectedHead`, the anchored head is checked before any row that carries it is dropped. */
  compact(options: CompactOptions): Promise<CompactResult> {
    return promised(() => {
      this.#open();
      this.#batcher.flush();
      const anchored = options.expectedHead === undefined && this.#settings.anchor !== undefined ? readJournalAnchor(this.#settings.anchor.path) : undefined;
      // The checkpoint is signed, not sealed: an auditor with the public key alone vouches for the dropped rows by it.
      this.#store.signing?.signNext();
      const result = compactJournal(this.#store, this.#openClaims, anchored === undefined ? options : { ...options, expectedHead: { seq: anchored.rows, hash: anchored.head } }, this.#settings.verifier);
      // The anchor may name a row just dropped, which without a key no checkpoint vouches for: it moves past it now,
      // not within its batch, where a process killed in between left the user's journal reading as not the user's.
      if (result.throughSeq > 0) this.#settings.anchor?.flush();
      return result;
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#batcher.close();
    // The last commits' anchor, before the file closes.
    this.#settings.anchor?.flush();
    this.#closed = true;
    this.#store.close();
  }

  #open(): void {
    if (this.#closed) throw new ConfigurationError('journal', 'is closed');
  }
}
