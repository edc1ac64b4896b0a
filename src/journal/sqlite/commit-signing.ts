import type { ChainHead } from './chain-types.js';
import type { ReceiptSigner } from './receipt-signer.js';

/**
 * How long a signed journal seals its commits (`ReceiptSigner.seal`) after
 * one it Ed25519-signed, before the next is signed again, unless the
 * journal is opened with another `signEveryMs`.
 */
export const DEFAULT_SIGN_EVERY_MS = 100;

/** A store's last commit: whether it ended on a sealed row, when it committed (`performance.now()`), and its head. */
export interface LastCommit {
  readonly sealed: boolean;
  readonly at: number;
  readonly head: ChainHead | undefined;
}

/**
 * How a signed store vouches for the last row of each commit: its Ed25519
 * signature, or its seal within `everyMs` of the last commit signed. A seal
 * vouches for the row to every holder of the key, which is every journal
 * that writes or acts on the rows; the public key checks signatures only,
 * so an auditor who holds it alone checks the rows up to the last one
 * signed, which covers every row before it. Timed on the monotonic clock:
 * the system clock set back would seal every commit for as long as it was
 * set back.
 */
export class CommitSigning {
  readonly #signer: ReceiptSigner;
  /** How long commits are sealed after one Ed25519-signed; 0: every commit is signed. */
  readonly everyMs: number;
  /** When the last commit whose head this store signed committed; until `everyMs` later its commits are sealed. */
  #signedAt = Number.NEGATIVE_INFINITY;
  /** How the last row the open transaction vouched for is: undefined while it appended none (a pinned head). */
  #inWrite: 'signed' | 'sealed' | undefined;
  #last: LastCommit = { sealed: false, at: 0, head: undefined };

  constructor(signer: ReceiptSigner, everyMs: number) {
    this.#signer = signer;
    this.everyMs = everyMs;
  }

  /** A transaction begins: it has vouched for no row yet. */
  began(): void {
    this.#inWrite = undefined;
  }

  /** The signature or the seal over the row `hash`, the last the transaction appends so far. */
  vouch(hash: string): string {
    this.#inWrite = performance.now() - this.#signedAt < this.everyMs ? 'sealed' : 'signed';
    return this.#inWrite === 'sealed' ? this.#signer.seal(hash) : this.#signer.sign(hash);
  }

  /** The transaction committed, ending on `head`. One that only pinned the head (a compaction that dropped nothing) left it as it was. */
  committed(head: ChainHead): void {
    if (this.#inWrite === undefined) return;
    const at = performance.now();
    this.#last = { sealed: this.#inWrite === 'sealed', at, head };
    if (this.#inWrite === 'signed') this.#signedAt = at;
  }

  /** Ed25519-sign the next commit, not seal it: a burst of writes ends, the journal closes, a checkpoint an auditor checks. */
  signNext(): void {
    this.#signedAt = Number.NEGATIVE_INFINITY;
  }

  /** This store's last commit (`CommitBatcher` signs a sealed head over once writing stops). */
  get last(): LastCommit {
    return this.#last;
  }
}
