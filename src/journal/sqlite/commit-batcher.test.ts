import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { ChainStore } from './chain-store.js';
import { CommitBatcher } from './commit-batcher.js';
import { isSeal, loadReceiptSigner } from './receipt-signer.js';
import { migrateSchema } from './schema.js';
import { verifyChain } from './verify-chain.js';

function store(): ChainStore {
  const db = new Database(':memory:');
  migrateSchema(db);
  return new ChainStore(db, undefined);
}

function signedStore(signEveryMs?: number): ChainStore {
  const keyDir = mkdtempSync(join(tmpdir(), 'toolgate-batcher-keys-'));
  try {
    const db = new Database(':memory:');
    migrateSchema(db);
    return new ChainStore(db, loadReceiptSigner(keyDir), signEveryMs);
  } finally {
    rmSync(keyDir, { recursive: true, force: true });
  }
}

const signedTypes = (chain: ChainStore) => chain.db.prepare('SELECT type FROM events WHERE signature IS NOT NULL ORDER BY seq').pluck().all();

const event = (chain: ChainStore, type: string) => () => chain.append('events', { at: 1, type, body: '{}' });

describe('CommitBatcher', () => {
  it('commits the writes of one turn together, and resolves each only after the commit', async () => {
    const chain = store();
    const batcher = new CommitBatcher(chain, 10);
    const written = Promise.all([batcher.commit(event(chain, 'a')), batcher.commit(event(chain, 'b')), batcher.commit(event(chain, 'c'))]);
    expect(chain.db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(0);
    const heads = await written;
    expect(heads.map((head) => head.seq)).toEqual([1, 2, 3]);
    expect(chain.db.prepare('SELECT type FROM events ORDER BY seq').pluck().all()).toEqual(['a', 'b', 'c']);
    expect(chain.db.inTransaction).toBe(false);
  });

  it('rolls back and rejects only the write that failed; the rest of the batch commits and the chain stays linked', async () => {
    const chain = store();
    const batcher = new CommitBatcher(chain, 10);
    const failing = () => {
      chain.append('events', { at: 1, type: 'half-written', body: '{}' });
      throw new Error('boom');
    };
    const results = await Promise.allSettled([batcher.commit(event(chain, 'a')), batcher.commit(failing), batcher.commit(event(chain, 'c'))]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const rows = chain.db.prepare('SELECT seq, type, prev_hash, hash FROM events ORDER BY seq').all() as { seq: number; type: string; prev_hash: string; hash: string }[];
    expect(rows.map((row) => [row.seq, row.type])).toEqual([
      [1, 'a'],
      [2, 'c'],
    ]);
    expect(rows[1]?.prev_hash).toBe(rows[0]?.hash);
  });

  it('a write alone in its batch that throws is rejected with its own error and leaves no row; the next write links to the head', async () => {
    const chain = store();
    const batcher = new CommitBatcher(chain, 10);
    await batcher.commit(event(chain, 'a'));
    await expect(
      batcher.commit(() => {
        chain.append('events', { at: 1, type: 'half-written', body: '{}' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await batcher.commit(event(chain, 'b'));
    const rows = chain.db.prepare('SELECT seq, type, prev_hash, hash FROM events ORDER BY seq').all() as { seq: number; type: string; prev_hash: string; hash: string }[];
    expect(rows.map((row) => [row.seq, row.type])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(rows[1]?.prev_hash).toBe(rows[0]?.hash);
    expect(chain.db.inTransaction).toBe(false);
  });

  it('a deferred write does not wait, and is committed within the delay; flush() commits it at once; each is told once its batch committed', async () => {
    const chain = store();
    const batcher = new CommitBatcher(chain, 10);
    const errors: unknown[] = [];
    const committed: string[] = [];
    batcher.defer(event(chain, 'later'), () => committed.push('later'), (error) => errors.push(error));
    expect(batcher.pending).toBe(true);
    expect(chain.db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(chain.db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(1);
    expect(committed).toEqual(['later']);
    batcher.defer(event(chain, 'flushed'), () => committed.push('flushed'), (error) => errors.push(error));
    batcher.flush();
    expect(batcher.pending).toBe(false);
    expect(chain.db.prepare('SELECT type FROM events ORDER BY seq').pluck().all()).toEqual(['later', 'flushed']);
    expect(committed).toEqual(['later', 'flushed']);
    expect(errors).toEqual([]);
  });

  it('signs only the last write of a batch: the rows before it name no key, and the signature covers them', async () => {
    const chain = signedStore();
    const batcher = new CommitBatcher(chain, 10);
    await Promise.all([batcher.commit(event(chain, 'a')), batcher.commit(event(chain, 'b')), batcher.commit(event(chain, 'c'))]);
    expect(signedTypes(chain)).toEqual(['c']);
    expect(chain.db.prepare('SELECT count(*) FROM events WHERE key_id IS NULL').pluck().get()).toBe(2);
    expect(verifyChain(chain.db, { verifier: chain.signer })).toMatchObject({ ok: true, rows: 3 });
  });

  it('commits write by write when the last write of a batch appends nothing: no commit ends on an unsigned row', async () => {
    const chain = signedStore();
    const batcher = new CommitBatcher(chain, 10);
    const values = await Promise.all([batcher.commit(event(chain, 'a')), batcher.commit(event(chain, 'b')), batcher.commit(() => 'read only')]);
    expect(values[2]).toBe('read only');
    expect(signedTypes(chain)).toEqual(['a', 'b']);
    expect(verifyChain(chain.db, { verifier: chain.signer })).toMatchObject({ ok: true, rows: 2 });
  });

  it('signs a sealed head over once writing stops, also when the writes queued as the timer came could not commit', async () => {
    const chain = signedStore(30);
    const batcher = new CommitBatcher(chain, 60);
    await batcher.commit(event(chain, 'signed'));
    await batcher.commit(event(chain, 'sealed'));
    // A receipt is queued as the seal timer comes, and its commit then fails (a lock held past the busy timeout).
    vi.spyOn(chain, 'writeBatch').mockImplementationOnce(() => {
      throw new Error('database is locked');
    });
    await new Promise<void>((resolve) => batcher.defer(event(chain, 'lost'), () => undefined, () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const last = chain.db.prepare<[], { type: string; signature: string }>('SELECT type, signature FROM events ORDER BY seq DESC LIMIT 1').get();
    expect(last?.type).toBe('journal-signed');
    expect(isSeal(last?.signature)).toBe(false);
    expect(verifyChain(chain.db, { verifier: chain.signer })).toMatchObject({ ok: true, rows: 3 });
  });
});
