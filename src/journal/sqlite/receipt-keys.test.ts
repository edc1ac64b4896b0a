import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { createSqliteJournal } from './create-sqlite-journal.js';
import { FOLD_AT, ReceiptKeys, receiptKeysProblem } from './receipt-keys.js';
import { migrateSchema, SCHEMA_VERSION } from './schema.js';
import { useJournalFolder } from './__fixtures__/journal-folder.js';

const { dir, open } = useJournalFolder('toolgate-receipt-keys-');

function connection(): { store: ChainStore; keys: ReceiptKeys } {
  const db = open();
  migrateSchema(db);
  const store = new ChainStore(db, undefined);
  return { store, keys: new ReceiptKeys(store) };
}

function receipt(store: ChainStore, key: string, body: string): void {
  store.write(() => store.append('receipts', { at: 1, key, claim_id: null, run_id: null, tool: 'bump', action_digest: null, body }));
}

function event(store: ChainStore): void {
  store.write(() => store.append('events', { at: 1, type: 'note', body: '{}' }));
}

const through = (db: Database.Database): number => Number(db.prepare<[], string>(`SELECT value FROM meta WHERE name = 'receipt_keys_through'`).pluck().get());
const folded = (db: Database.Database): number => db.prepare<[], number>(`SELECT count(*) FROM receipt_keys`).pluck().get() ?? 0;

describe('ReceiptKeys', () => {
  it("finds the latest receipt of a key, this connection's and another's, in the tail and once folded", () => {
    const mine = connection();
    const other = connection();
    receipt(mine.store, 'a', 'a1');
    receipt(other.store, 'b', 'b1');
    receipt(mine.store, 'a', 'a2');
    expect(folded(mine.store.db)).toBe(0);
    expect(mine.keys.bodyOf('a')).toBe('a2');
    expect(mine.keys.bodyOf('b')).toBe('b1');
    expect(other.keys.bodyOf('a')).toBe('a2');
    expect(other.keys.bodyOf('never')).toBeUndefined();
    // Past FOLD_AT rows the next receipt folds every receipt into the table, the other connection's included.
    for (let index = 0; index < FOLD_AT; index += 1) event(other.store);
    receipt(mine.store, 'c', 'c1');
    expect(folded(mine.store.db)).toBe(4);
    expect(through(mine.store.db)).toBe(FOLD_AT + 4);
    for (const keys of [mine.keys, other.keys]) {
      expect(keys.bodyOf('a')).toBe('a2');
      expect(keys.bodyOf('b')).toBe('b1');
      expect(keys.bodyOf('c')).toBe('c1');
    }
    // A newer receipt of a folded key is in the tail, and wins.
    receipt(other.store, 'a', 'a3');
    expect(mine.keys.bodyOf('a')).toBe('a3');
    expect(receiptKeysProblem(mine.store.db)).toBeUndefined();
  });

  it('takes back a receipt, and a fold, whose transaction rolled back', () => {
    const { store, keys } = connection();
    receipt(store, 'a', 'a1');
    for (let index = 0; index < FOLD_AT; index += 1) event(store);
    expect(() =>
      store.write(() => {
        store.append('receipts', { at: 1, key: 'a', claim_id: null, run_id: null, tool: 'bump', action_digest: null, body: 'lost' });
        // Seen inside its own transaction.
        expect(keys.bodyOf('a')).toBe('lost');
        throw new Error('the commit failed');
      }),
    ).toThrow('the commit failed');
    expect(folded(store.db)).toBe(0);
    expect(keys.bodyOf('a')).toBe('a1');
    // The number the rolled-back receipt had goes to another connection's row, which is read.
    const other = connection();
    receipt(other.store, 'b', 'b1');
    expect(keys.bodyOf('b')).toBe('b1');
    expect(keys.bodyOf('a')).toBe('a1');
    expect(receiptKeysProblem(store.db)).toBeUndefined();
  });

  it('takes over the receipts of a journal written with the index by key, and drops that index', () => {
    const db = open();
    // Version 5: as toolgate wrote a journal before receipts by key.
    migrateSchema(db, 5);
    const names = (): string[] => db.prepare<[], { name: string }>(`SELECT name FROM sqlite_master`).all().map((row) => row.name);
    expect(names()).toContain('receipts_by_key');
    const insert = db.prepare(`INSERT INTO receipts (seq, at, key, tool, body, prev_hash, hash) VALUES (?, 1, ?, 'bump', ?, '', '')`);
    insert.run(3, 'k', 'old');
    insert.run(5, 'j', 'other');
    insert.run(8, 'k', 'new');
    migrateSchema(db);
    expect(names()).not.toContain('receipts_by_key');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(through(db)).toBe(8);
    expect(folded(db)).toBe(3);
    const keys = new ReceiptKeys(new ChainStore(db, undefined));
    expect(keys.bodyOf('k')).toBe('new');
    expect(keys.bodyOf('j')).toBe('other');
  });

  it('is checked against the receipts: an entry removed, one added or a reach moved on is found', () => {
    const { store } = connection();
    receipt(store, 'a', 'a1');
    receipt(store, 'b', 'b1');
    for (let index = 0; index < FOLD_AT; index += 1) event(store);
    receipt(store, 'c', 'c1');
    receipt(store, 'd', 'd1');
    const db = store.db;
    expect(receiptKeysProblem(db)).toBeUndefined();
    db.prepare(`DELETE FROM receipt_keys WHERE key = 'b'`).run();
    expect(receiptKeysProblem(db)).toEqual({ table: 'receipts', id: 2, problem: expect.stringContaining('missing from the receipt key index') });
    db.prepare(`INSERT INTO receipt_keys (key, seq) VALUES ('b', 2)`).run();
    // Another call's result under a key it never had.
    db.prepare(`INSERT INTO receipt_keys (key, seq) VALUES ('z', 1)`).run();
    expect(receiptKeysProblem(db)).toEqual({ table: 'receipt_keys', id: 1, problem: expect.stringContaining('names a receipt that is not there') });
    db.prepare(`DELETE FROM receipt_keys WHERE key = 'z'`).run();
    // The reach moved past a receipt never folded: that receipt would be found by no lookup.
    db.prepare(`UPDATE meta SET value = '1000' WHERE name = 'receipt_keys_through'`).run();
    expect(receiptKeysProblem(db)).toEqual({ table: 'receipts', id: FOLD_AT + 4, problem: expect.stringContaining('missing') });
  });
});

describe('the journal with the receipt key index', () => {
  it('drops the key entries of the receipts compaction drops: the chain verifies, and the dropped calls are no longer found', async () => {
    const path = join(dir(), 'journal.db');
    const journal = createSqliteJournal(path, { onUnresolved: () => undefined });
    for (let index = 0; index <= FOLD_AT; index += 1) {
      await journal.settle(undefined, { ok: true, value: index, content: String(index), receipt: { callId: `c${index}`, tool: 'bump', actionDigest: 'act', status: 'ok', code: 'OK' } as never });
    }
    const db = open();
    // The receipt at row FOLD_AT folded every receipt up to it; the last one is in the tail.
    expect(folded(db)).toBe(FOLD_AT);
    const result = await journal.compact({ before: Date.now() + 1 });
    expect(result.throughSeq).toBe(FOLD_AT + 1);
    expect(folded(db)).toBe(0);
    expect(receiptKeysProblem(db)).toBeUndefined();
    expect((await journal.verify()).ok).toBe(true);
    expect(await journal.lookup('act:c0')).toBeUndefined();
    expect(await journal.lookup(`act:c${FOLD_AT}`)).toBeUndefined();
    await journal.settle(undefined, { ok: true, value: 'after', content: 'after', receipt: { callId: 'after', tool: 'bump', actionDigest: 'act', status: 'ok', code: 'OK' } as never });
    expect(await journal.lookup('act:after')).toMatchObject({ value: 'after' });
    journal.close();
  });

  it('replays a recorded call past a fold, across journals on one file, and verify() reports a removed entry', async () => {
    const path = join(dir(), 'journal.db');
    const first = createSqliteJournal(path, { onUnresolved: () => undefined });
    const second = createSqliteJournal(path, { onUnresolved: () => undefined });
    const settle = (journal: typeof first, callId: string) =>
      journal.settle(undefined, {
        ok: true,
        value: callId,
        content: callId,
        receipt: { callId, tool: 'bump', actionDigest: 'act', status: 'ok', code: 'OK' } as never,
      });
    await settle(first, 'c0');
    for (let index = 1; index <= FOLD_AT; index += 1) await settle(index % 2 === 0 ? first : second, `c${index}`);
    expect(await second.lookup('act:c0')).toMatchObject({ value: 'c0' });
    expect(await first.lookup(`act:c${FOLD_AT}`)).toMatchObject({ value: `c${FOLD_AT}` });
    expect(await first.lookup('act:never')).toBeUndefined();
    expect((await first.verify()).ok).toBe(true);
    second.close();
    first.close();
    const db = open();
    db.prepare(`DELETE FROM receipt_keys WHERE key = 'act:c0'`).run();
    db.close();
    const reopened = createSqliteJournal(path, { onUnresolved: () => undefined });
    const verified = await reopened.verify();
    expect(verified.ok).toBe(false);
    expect(verified.firstBadRow).toMatchObject({ table: 'receipts', id: 1 });
    reopened.close();
  });
});
