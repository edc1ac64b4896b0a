import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteJournal } from './create-sqlite-journal.js';
import { FOLD_AT, receiptKeysProblem } from './receipt-keys.js';
import { useJournalFolder } from './__fixtures__/journal-folder.js';

const { dir, open } = useJournalFolder('toolgate-receipt-keys-tampering-');

type Journal = ReturnType<typeof createSqliteJournal>;

const settle = (journal: Journal, callId: string) =>
  journal.settle(undefined, { ok: true, value: callId, content: callId, receipt: { callId, tool: 'bump', actionDigest: 'act', status: 'ok', code: 'OK' } as never });

describe('the reach of the receipt key index, changed in the file', () => {
  for (const [name, reach] of [
    ['not a number', 'x'],
    ['infinite', '1e999'],
    ['past the chain', '1000000'],
  ] as const) {
    it(`${name}: verify() reports it, and no connection records a call that others would not find`, async () => {
      const path = join(dir(), 'journal.db');
      const writer = createSqliteJournal(path, { onUnresolved: () => undefined });
      for (let index = 0; index <= FOLD_AT; index += 1) await settle(writer, `c${index}`);
      writer.close();
      // Every receipt put in receipt_keys: the entries say what the receipts say, and only the reach is wrong.
      const db = open();
      db.prepare(`INSERT OR IGNORE INTO receipt_keys (key, seq) SELECT key, seq FROM receipts`).run();
      db.prepare(`UPDATE meta SET value = ? WHERE name = 'receipt_keys_through'`).run(reach);
      expect(receiptKeysProblem(db)).toEqual({ table: 'meta', id: 0, problem: expect.stringContaining('reaches past the chain') });
      const first = createSqliteJournal(path, { onUnresolved: () => undefined });
      const second = createSqliteJournal(path, { onUnresolved: () => undefined });
      expect((await first.verify()).firstBadRow).toMatchObject({ table: 'meta' });
      // Read as it was, the reach hid every later receipt from every other connection and from a restart: the call ran again.
      await expect(settle(second, 'late')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
      await expect(first.lookup('act:c0')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
      second.close();
      first.close();
      expect(db.prepare(`SELECT count(*) FROM receipts WHERE key = 'act:late'`).pluck().get()).toBe(0);
    });
  }
});

describe('the receipt key index, redeclared in the file', () => {
  const declarations: readonly (readonly [string, string])[] = [
    // A later fold's INSERT OR IGNORE skips every entry; the receipts it folded are in no tail either.
    ['with a CHECK no later entry passes', `CREATE TABLE receipt_keys (key TEXT NOT NULL, seq INTEGER NOT NULL CHECK (seq < 1000), PRIMARY KEY (key, seq)) WITHOUT ROWID`],
    // A fold skips a key's newer receipt: its older result answers the call.
    ['with one entry a key', `CREATE TABLE receipt_keys (key TEXT NOT NULL PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID`],
    // A call id that differs only in case is answered with the other call's result.
    ['comparing keys without case', `CREATE TABLE receipt_keys (key TEXT NOT NULL COLLATE NOCASE, seq INTEGER NOT NULL, PRIMARY KEY (key, seq)) WITHOUT ROWID`],
  ];
  for (const [name, declaration] of declarations) {
    it(`${name}: verify() reports it as soon as it is there, every entry still in place`, async () => {
      const path = join(dir(), 'journal.db');
      const journal = createSqliteJournal(path, { onUnresolved: () => undefined });
      for (let index = 0; index <= FOLD_AT; index += 1) await settle(journal, `c${index}`);
      const db = open();
      db.exec(`ALTER TABLE receipt_keys RENAME TO receipt_keys_before; ${declaration}; INSERT INTO receipt_keys SELECT * FROM receipt_keys_before; DROP TABLE receipt_keys_before`);
      expect(receiptKeysProblem(db)).toEqual({ table: 'schema', id: 0, problem: expect.stringContaining('receipt_keys differs from the table the journal creates') });
      expect((await journal.verify()).firstBadRow).toMatchObject({ table: 'schema' });
      journal.close();
    });
  }

  it('with a trigger on it, on meta or on runs (one that drops what a fold inserts): verify() reports it before any fold', async () => {
    const path = join(dir(), 'journal.db');
    const journal = createSqliteJournal(path, { onUnresolved: () => undefined });
    await settle(journal, 'c0');
    const db = open();
    db.exec(`CREATE TRIGGER receipt_keys_forget AFTER INSERT ON receipt_keys BEGIN DELETE FROM receipt_keys WHERE key = NEW.key AND seq = NEW.seq; END`);
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'unexpected trigger receipt_keys_forget on receipt_keys' });
    db.exec(`DROP TRIGGER receipt_keys_forget`);
    db.exec(`CREATE TRIGGER reach_moved AFTER UPDATE ON meta BEGIN UPDATE meta SET value = '0' WHERE name = 'unused'; END`);
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'unexpected trigger reach_moved on meta' });
    db.exec(`DROP TRIGGER reach_moved`);
    // Where each run's receipts begin: a run whose row is dropped reads as having recorded nothing.
    db.exec(`CREATE TRIGGER runs_forget AFTER INSERT ON runs BEGIN DELETE FROM runs WHERE run_id = NEW.run_id; END`);
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'unexpected trigger runs_forget on runs' });
    journal.close();
  });
});
