/**
 * A signed journal's receipt tail reads how far the receipt key index
 * reaches after it walked: a receipt another process commits between the
 * two, under a reach a writer without the key moves past it, must not fall
 * out of both the tail and the index.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { ReceiptKeys } from './receipt-keys.js';
import { loadReceiptSigner } from './receipt-signer.js';
import { migrateSchema } from './schema.js';
import { useJournalFolder } from './__fixtures__/journal-folder.js';

const { dir, open } = useJournalFolder('toolgate-receipt-keys-race-');

function connection(): { store: ChainStore; keys: ReceiptKeys } {
  const db = open();
  migrateSchema(db);
  const store = new ChainStore(db, loadReceiptSigner(join(dir(), 'keys')));
  return { store, keys: new ReceiptKeys(store) };
}

function receipt(store: ChainStore, key: string, body: string): void {
  store.write(() => store.append('receipts', { at: 1, key, claim_id: null, run_id: null, tool: 'bump', action_digest: null, body }));
}

describe('attack: the receipt key index reach moved past a receipt committed between the walk and the read of the reach', () => {
  function raceAfterTheWalk(mine: { store: ChainStore }, other: { store: ChainStore }): void {
    const attacker = open();
    const walk = mine.store.catchUp.bind(mine.store);
    let raced = false;
    mine.store.catchUp = () => {
      const walked = walk();
      if (!raced) {
        raced = true;
        // Just after the walk: another process commits a receipt, and the writer without the key moves the reach past
        // it, with every receipt but that one in the index.
        receipt(other.store, 'b', 'b1');
        attacker.exec(`INSERT OR IGNORE INTO receipt_keys (key, seq) SELECT key, seq FROM receipts WHERE key <> 'b'`);
        attacker.prepare(`INSERT OR REPLACE INTO meta (name, value) VALUES ('receipt_keys_through', ?)`).run(String(other.store.head().seq));
      }
      return walked;
    };
  }

  /** Found, or the journal refuses: never a call recorded that reads as one never made. */
  function foundOrRefused(keys: ReceiptKeys): void {
    let found: unknown;
    try {
      found = keys.bodyOf('b');
    } catch (error) {
      found = error;
    }
    expect(found).not.toBeUndefined();
    if (found !== 'b1') expect(found).toMatchObject({ code: 'CONFIGURATION_INVALID' });
  }

  it('the walk hands over rows, then the race: the receipt is still found', () => {
    const mine = connection();
    const other = connection();
    receipt(mine.store, 'a', 'a1');
    expect(mine.keys.bodyOf('a')).toBe('a1');
    receipt(other.store, 'c', 'c1');
    raceAfterTheWalk(mine, other);
    expect(mine.keys.bodyOf('c')).toBe('c1');
    foundOrRefused(mine.keys);
  });

  it('the rows walked already by another reader, then the race: the receipt is still found', () => {
    const mine = connection();
    const other = connection();
    receipt(mine.store, 'a', 'a1');
    expect(mine.keys.bodyOf('a')).toBe('a1');
    receipt(other.store, 'c', 'c1');
    mine.store.catchUp();
    raceAfterTheWalk(mine, other);
    expect(mine.keys.bodyOf('c')).toBe('c1');
    foundOrRefused(mine.keys);
  });
});
