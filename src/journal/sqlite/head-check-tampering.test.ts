/**
 * A writer with the journal file but not the signing key, against the check
 * a signed journal makes before it links onto, replays from or anchors the
 * file's head (`ChainStore.linkHead`): each test tampers the way such a
 * writer can and expects the journal to act on no row its key did not sign.
 */
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CHAINED_TABLES } from './schema.js';
import { appendForged, closeJournal, journalAt, keyDir, settle, tamper } from './__fixtures__/tampering.js';

const refused = { code: 'CONFIGURATION_INVALID' };
const forgedResult = JSON.stringify({ ok: true, value: 'FORGED', content: 'FORGED' });

/**
 * What a toolgate of schema 1 left: events and claims without `key_id` or
 * `signature`, no run or receipt key index, the indexes it made, and
 * `user_version` 1. Only a file with no signed event or claim can be dressed
 * so: a signed one's hash covers its key id.
 */
function dressAsSchema1(db: Database.Database): void {
  for (const table of ['events', 'claims']) {
    db.exec(`ALTER TABLE ${table} DROP COLUMN signature`);
    db.exec(`ALTER TABLE ${table} DROP COLUMN key_id`);
  }
  db.exec(`DROP TABLE runs; DROP TABLE receipt_keys; DELETE FROM meta WHERE name = 'receipt_keys_through';
    CREATE INDEX claims_by_key ON claims (key, seq); CREATE INDEX receipts_by_key ON receipts (key, seq); CREATE INDEX receipts_by_run ON receipts (run_id, seq);`);
  db.pragma('user_version = 1');
}

describe('the open-time signing of a history older than the key', () => {
  it('does not sign over a forged receipt in a signed journal dressed as schema 1: schema 1 signed every receipt', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 2);
    closeJournal(journal);
    tamper(journal.path, (db) => {
      appendForged(db, 'receipts', { at: Date.now(), key: 'act9:c9', claim_id: null, run_id: null, tool: 'write_note', action_digest: 'act9', body: forgedResult, key_id: null });
      dressAsSchema1(db);
    });
    const reopened = journalAt({ sign: { keyDir: keyDir() } });
    await expect(reopened.lookup('act9:c9')).rejects.toMatchObject(refused);
    expect((await reopened.verify()).firstBadRow).toMatchObject({ table: 'receipts', id: 3 });
  });

  it('does not sign over a schema 1 file none of whose rows its key signed: it is an unsigned journal, not a history the key left', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 1);
    closeJournal(journal);
    tamper(journal.path, (db) => {
      for (const table of CHAINED_TABLES) db.prepare(`DELETE FROM ${table}`).run();
      appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}', key_id: null });
      dressAsSchema1(db);
    });
    const reopened = journalAt({ sign: { keyDir: keyDir() } });
    await expect(reopened.append({ type: 'note', at: Date.now(), data: {} })).rejects.toMatchObject(refused);
    expect((await reopened.verify()).ok).toBe(false);
  });
});
