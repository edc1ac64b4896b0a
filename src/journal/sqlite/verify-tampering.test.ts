/**
 * More of what a writer with the file but not the key can do: compaction,
 * values the journal never writes, the append-only triggers, an old schema.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CHAINED_TABLES } from './schema.js';
import { effectCall, journalAt, journalPath, keyDir, settle, tamper, forgeReceiptRelinked, useTestFolder } from './__fixtures__/tampering.js';

useTestFolder();

describe('compaction', () => {
  it('refuses to drop a prefix that does not verify (its signed checkpoint would vouch for it)', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 4);
    tamper(journal.path, (db) => {
      // Edit receipt 2 and re-link every later row: the signatures or seals no longer match.
      forgeReceiptRelinked(db, 2);
    });
    await expect(journal.compact({ before: Date.now() + 1 })).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringMatching(/receipts #2: (signature|seal) mismatch/) });
    expect(new Database(journal.path, { readonly: true }).prepare('SELECT count(*) FROM receipts').pluck().get()).toBe(4);
  });

  it('checks an anchored head before it drops the rows that carry it', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 5);
    const anchored = journal.head();
    // A writer without the key truncates the signed tail; the honest writer then appends over it.
    tamper(journal.path, (db) => db.prepare('DELETE FROM receipts WHERE seq >= 4').run());
    const honest = journalAt({ sign: { keyDir: keyDir() } }, journal.path);
    await settle(honest, 6, 8);
    expect((await journal.verify({ expectedHead: anchored })).firstBadRow).toMatchObject({ table: 'receipts', id: 5 });
    await expect(journal.compact({ before: Date.now() + 1, expectedHead: anchored })).rejects.toMatchObject({ message: expect.stringMatching(/receipts #5: differs from the anchored head/) });
    expect(journal.head().seq).toBe(6);
  });
});

describe('values the journal never writes', () => {
  it('catches a BLOB put where the journal wrote NULL, which a NULL-reading hash would not see', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 3);
    expect((await journal.verify()).ok).toBe(true);
    tamper(journal.path, (db) => {
      db.prepare("UPDATE receipts SET run_id = CAST('run-attacker' AS BLOB), action_digest = CAST('forged' AS BLOB) WHERE seq = 2").run();
    });
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'receipts', id: 2, problem: 'a column holds a value the journal never writes: the row was changed' });
  });

  for (const column of ['table', '__proto__']) {
    it(`catches a column added under the name ${column}, whose value no hash would cover`, async () => {
      const journal = journalAt({ sign: { keyDir: keyDir() } });
      await settle(journal, 1, 3);
      tamper(journal.path, (db) => {
        db.exec(`ALTER TABLE receipts ADD COLUMN "${column}" TEXT`);
        db.prepare(`UPDATE receipts SET "${column}" = 'forged' WHERE seq = 2`).run();
      });
      expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: `receipts has a column named ${column}, whose values no hash covers` });
    });
  }

  it('verifies its own rows whose text holds a lone surrogate, which SQLite stores as U+FFFD', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    const call = effectCall('c\udc00');
    expect((await journal.prepare({ ...call, key: 'act:\ud800x', runId: 'run-\ud800', toolName: 'bump\ud800' })).status).toBe('claimed');
    journal.flush();
    expect(await journal.verify()).toMatchObject({ ok: true, rows: 1 });
  });

  it('finds a claim whose key held a lone surrogate after a restart: the retry is refused, not run again', async () => {
    const path = journalPath('restart.db');
    const call = { ...effectCall('c\udc00'), key: 'act:c\udc00' };
    const first = journalAt({}, path);
    expect((await first.prepare(call)).status).toBe('claimed');
    first.close();
    expect((await journalAt({}, path).prepare(call)).status).toBe('refused');
  });
});

describe('the append-only triggers', () => {
  it('catches same-named triggers that guard another table, after which a plain DELETE works', async () => {
    const journal = journalAt();
    await settle(journal, 1, 3);
    const db = new Database(journal.path);
    for (const table of CHAINED_TABLES) {
      for (const operation of ['update', 'delete']) {
        db.exec(`DROP TRIGGER ${table}_no_${operation}; CREATE TRIGGER ${table}_no_${operation} BEFORE ${operation.toUpperCase()} ON meta BEGIN SELECT 1; END`);
      }
    }
    expect(db.prepare('DELETE FROM receipts WHERE seq = 3').run().changes).toBe(1);
    db.close();
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'append-only trigger events_no_update is on table meta, not events' });
  });

  it('catches a same-named trigger on the right table that does nothing', async () => {
    const journal = journalAt();
    await settle(journal, 1, 2);
    const db = new Database(journal.path);
    db.exec(`DROP TRIGGER receipts_no_delete; CREATE TRIGGER receipts_no_delete BEFORE DELETE ON receipts WHEN 0 BEGIN SELECT RAISE(ABORT, 'toolgate journal: receipts rows are append-only'); END`);
    db.close();
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'append-only trigger receipts_no_delete differs from the one the journal creates' });
  });

  it('catches a trigger the journal does not create on a chained table (one that silently drops claims)', async () => {
    const journal = journalAt();
    await settle(journal, 1, 1);
    const db = new Database(journal.path);
    db.exec(`CREATE TRIGGER drop_claims BEFORE INSERT ON claims BEGIN SELECT RAISE(IGNORE); END`);
    db.close();
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'unexpected trigger drop_claims on claims' });
  });

  it('accepts the journal’s own triggers however they were spelled when restored', async () => {
    const journal = journalAt();
    await settle(journal, 1, 1);
    const db = new Database(journal.path);
    db.exec(`DROP TRIGGER claims_no_update; create   trigger claims_no_update before update on CLAIMS
      begin select raise ( abort , 'toolgate journal: claims rows are append-only' ) ;  end;`);
    db.close();
    expect(await journal.verify()).toMatchObject({ ok: true });
  });
});
