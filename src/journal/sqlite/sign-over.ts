import { ConfigurationError } from '../../core/internal.js';
import type { ChainHead } from './chain-types.js';
import type { ChainStore } from './chain-store.js';
import type { CommitSigning } from './commit-signing.js';
import type { KeyVouching, UnsignedTail } from './key-vouching.js';

/** What of a signed store signing over needs besides its writes: its key's vouching, the walk to restart, its refusal, its head. */
export interface SignOverParts {
  readonly vouching: KeyVouching;
  readonly signing: CommitSigning;
  /** Hand the rows past the last signed row over to the readers again, once the key vouches for them. */
  forgetWalk(): void;
  refusal(): ConfigurationError | undefined;
  /** Inside `write`: the head this store committed last, while no other connection committed since. */
  ownHead(): ChainHead | undefined;
}

/**
 * The `journal-signed` events a signed store appends: the signature over
 * rows no signature covers (a history older than the key, or a tail an
 * operator checked), and over the sealed row a store's last commit ended
 * on once writing stopped. Each is Ed25519-signed, never sealed: an auditor
 * with the public key alone checks what was signed over.
 */
export class SignOver {
  readonly #store: ChainStore;
  readonly #parts: SignOverParts;

  constructor(store: ChainStore, parts: SignOverParts) {
    this.#store = store;
    this.#parts = parts;
  }

  /** The rows the file ends on that no signature covers (`KeyVouching.unsignedTail`); throws once the store refuses. */
  unsignedTail(named: boolean): UnsignedTail | undefined {
    // Rows that do not chain are not a tail to sign over.
    const refusal = this.#parts.refusal();
    if (refusal !== undefined) throw refusal;
    return this.#parts.vouching.unsignedTail(named);
  }

  /**
   * Sign over the unsigned tail; `named`: the rows were named to an operator
   * who checked them, and `checkedHead` is the hash they were shown, which
   * the file must still end on.
   */
  tail(because: string, named: boolean, checkedHead: string | undefined): UnsignedTail | undefined {
    const { vouching, signing } = this.#parts;
    const vouched = vouching.vouched;
    signing.signNext();
    try {
      return this.#store.write(() => {
        const tail = this.unsignedTail(named);
        if (tail === undefined) return undefined;
        if (checkedHead !== undefined && checkedHead !== tail.head) {
          throw new ConfigurationError('head', `is not the row the journal ends on now (rows #${tail.from}–#${tail.through}, ending on ${tail.head}): rows were appended or rewritten since they were named; check them again`);
        }
        vouching.vouchFor({ seq: tail.through, hash: tail.head });
        // The walk stopped at the last signed row: the rows past it are handed over now that the key vouches for them
        // (a claim among them keeps its action in doubt), before the signature over them is appended.
        this.#parts.forgetWalk();
        this.#store.append('events', { at: Date.now(), type: 'journal-signed', body: JSON.stringify({ signedThrough: tail.through, because }) });
        return tail;
      });
    } catch (error) {
      // Not signed over after all (a full disk, a busy lock): without the signature the head is not vouched for.
      vouching.vouchFor(vouched);
      throw error;
    }
  }

  /**
   * Sign the sealed row this store's last commit ended on, if the file still
   * ends on it: writing has stopped, and an auditor who holds the public key
   * alone would otherwise find rows it cannot check past the last signature
   * until the next commit.
   */
  sealedHead(): void {
    const { signing } = this.#parts;
    if (!signing.last.sealed) return;
    signing.signNext();
    this.#store.write(() => {
      // The cache is dropped when another connection committed since: its head is its writer's to sign.
      const head = this.#parts.ownHead();
      const own = signing.last.head;
      if (head === undefined || head.seq !== own?.seq || head.hash !== own.hash) return;
      this.#store.append('events', { at: Date.now(), type: 'journal-signed', body: JSON.stringify({ signedThrough: head.seq, because: 'the rows sealed since the last signature' }) });
    });
  }
}
