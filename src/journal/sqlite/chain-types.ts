import type { ChainedTable } from './schema.js';

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/**
 * Told of every row this connection appends, as it is inserted, and of how
 * the transaction holding it ended: a row is in the file only once its
 * transaction committed (the open-claims mirror). With a signer, also told
 * of every row other connections committed, once the store walked it.
 */
export interface AppendObserver {
  /** `values`: the row's hashed columns as bound, in `HASHED_COLUMNS` order (then the chain's). */
  appended(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): void;
  /** `committed` false: the transaction rolled back and every row it was told of is gone. */
  ended(committed: boolean): void;
  /**
   * A row of the file, walked (`ChainStore.catchUp`): it holds its number
   * alone, links onto the row before it and hashes to its stored hash.
   * `values` as for `appended`. With a signer the readers take the rows
   * other connections commit from here, never from the file.
   */
  walked?(table: ChainedTable, seq: number, values: readonly (string | number | null)[]): void;
}
