/**
 * A signed journal walks the rows other connections committed inside its own
 * write transaction; when that transaction rolls back, only its own rows go:
 * the rows it walked stay in the readers (a claim another process left open
 * stays in doubt, a receipt it recorded is still found).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { OpenClaims } from './open-claims.js';
import { ReceiptKeys } from './receipt-keys.js';
import { loadReceiptSigner } from './receipt-signer.js';
import { migrateSchema } from './schema.js';
import { useJournalFolder } from './__fixtures__/journal-folder.js';

const { dir, open } = useJournalFolder('toolgate-walk-rollback-');

function connection(): { store: ChainStore; claims: OpenClaims; keys: ReceiptKeys } {
  const db = open();
  migrateSchema(db);
  const store = new ChainStore(db, loadReceiptSigner(join(dir(), 'keys')));
  return { store, claims: new OpenClaims(store), keys: new ReceiptKeys(store) };
}

describe('rows walked inside a write that rolls back', () => {
  it('stay in the readers, and the rows it appended go', () => {
    const mine = connection();
    const other = connection();
    mine.store.write(() => mine.store.append('events', { at: 1, type: 'note', body: '{}' }));
    mine.claims.refresh();
    other.store.write(() => other.store.append('claims', { at: 1, claim_id: 'x', key: 'act:c1', state: 'claimed', body: '{}' }));
    other.store.write(() => other.store.append('receipts', { at: 1, key: 'act:c9', claim_id: null, run_id: null, tool: 't', action_digest: null, body: 'r9' }));
    expect(() =>
      mine.store.write(() => {
        mine.store.append('receipts', { at: 1, key: 'act:c2', claim_id: null, run_id: null, tool: 't', action_digest: null, body: 'r2' });
        mine.store.append('claims', { at: 1, claim_id: 'y', key: 'act:c1', state: 'released', body: '{}' });
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect([...mine.claims.refresh().keys()]).toEqual(['act:c1']);
    expect(mine.keys.bodyOf('act:c9')).toBe('r9');
    expect(mine.keys.bodyOf('act:c2')).toBeUndefined();
    mine.store.write(() => mine.store.append('events', { at: 1, type: 'note', body: '{}' }));
    expect([...mine.claims.refresh().keys()]).toEqual(['act:c1']);
    expect(mine.keys.bodyOf('act:c9')).toBe('r9');
  });
});
