/**
 * A writer with the journal file but not the signing key, against the check
 * a signed journal makes before it links onto, replays from or anchors the
 * file's head (`ChainStore.linkHead`): each test tampers the way such a
 * writer can and expects the journal to act on no row its key did not sign.
 */
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChainStore } from './chain-store.js';
import { loadReceiptSigner } from './receipt-signer.js';
import { CHAINED_TABLES } from './schema.js';
import { appendForged, closeJournal, effectCall, fileHeadOf, headOf, journalAt, journalPath, keyDir, settle, tamper, useTestFolder } from './__fixtures__/tampering.js';

useTestFolder();

const refused = { code: 'CONFIGURATION_INVALID' };
const forgedResult = JSON.stringify({ ok: true, value: 'FORGED', content: 'FORGED' });

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * What a toolgate of schema 1 left: events and claims without `key_id` or
 * `signature`, no run or receipt key index nor blobs, the indexes it made, and
 * `user_version` 1. Only a file with no signed event or claim can be dressed
 * so: a signed one's hash covers its key id.
 */
function dressAsSchema1(db: Database.Database): void {
  for (const table of ['events', 'claims']) {
    db.exec(`ALTER TABLE ${table} DROP COLUMN signature`);
    db.exec(`ALTER TABLE ${table} DROP COLUMN key_id`);
  }
  db.exec(`DROP TABLE runs; DROP TABLE receipt_keys; DROP TABLE blobs; DELETE FROM meta WHERE name = 'receipt_keys_through';
    CREATE INDEX claims_by_key ON claims (key, seq); CREATE INDEX receipts_by_key ON receipts (key, seq); CREATE INDEX receipts_by_run ON receipts (run_id, seq);`);
  db.pragma('user_version = 1');
}

describe('the open-time signing of a history older than the key', () => {
  it('does not sign over a forged receipt in a signed journal dressed as schema 1: schema 1 signed every receipt', async () => {
    // Every commit signed, none sealed: no signed event at close tells this file from one schema 1 left.
    const journal = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 0 } });
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

  it('does not sign over forged events and claims after the last receipt of a journal that never signed one, dressed as schema 1', async () => {
    // Every commit of this journal ended on a signed receipt: nothing in the file tells its tail from the one schema 1 left.
    const journal = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 0 } });
    await settle(journal, 1, 2);
    closeJournal(journal);
    tamper(journal.path, (db) => {
      appendForged(db, 'claims', { at: Date.now(), claim_id: 'x', key: 'act:c9', state: 'released', body: '{}', key_id: null });
      dressAsSchema1(db);
    });
    const reopened = journalAt({ sign: { keyDir: keyDir() } });
    await expect(reopened.append({ type: 'note', at: Date.now(), data: {} })).rejects.toMatchObject(refused);
    expect((await reopened.verify()).firstBadRow).toMatchObject({ table: 'claims', id: 3 });
  });
});

describe('the head check holds for the rows read after it', () => {
  /** Append a forged receipt of `key` right after the journal's next head check, from another connection. */
  function forgeAfterNextCheck(path: string, key: string): void {
    const check = Reflect.get<ChainStore, 'checkHead'>(ChainStore.prototype, 'checkHead');
    vi.spyOn(ChainStore.prototype, 'checkHead').mockImplementationOnce(function (this: ChainStore) {
      check.call(this);
      tamper(path, (db) => appendForged(db, 'receipts', { at: Date.now(), key, claim_id: null, run_id: null, tool: 'write_note', action_digest: 'act9', body: forgedResult, key_id: null }));
    });
  }

  it('does not replay a receipt committed between the check and the lookup of a record-tier call', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 1);
    forgeAfterNextCheck(journal.path, 'act9:c9');
    const prepared = await journal.prepare({ ...effectCall('c9'), key: 'act9:c9', tier: 'record' });
    expect(prepared.status).toBe('claimed');
    // The next look finds the forged head, and refuses.
    await expect(journal.lookup('act9:c9')).rejects.toMatchObject(refused);
  });

  it('does not return a receipt committed between the check and the read of lookup()', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 1);
    forgeAfterNextCheck(journal.path, 'act9:c9');
    expect(await journal.lookup('act9:c9')).toBeUndefined();
    await expect(journal.lookup('act9:c9')).rejects.toMatchObject(refused);
  });
});

describe('the head a signed journal checks outside its own writes', () => {
  const forgedReceipt = { at: Date.now(), key: 'act9:c9', claim_id: null, run_id: null, tool: 'write_note', action_digest: 'act9', body: forgedResult, key_id: null };

  it('is the file\'s, not the last row the journal wrote: a forged receipt appended since is neither replayed nor returned by lookup()', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 2);
    tamper(journal.path, (db) => appendForged(db, 'receipts', forgedReceipt));
    await expect(journal.prepare({ ...effectCall('c9'), key: 'act9:c9', tier: 'record' })).rejects.toMatchObject({ ...refused, message: expect.stringContaining('(receipts #3)') });
    await expect(journal.lookup('act9:c9')).rejects.toMatchObject(refused);
    expect((await journal.verify()).firstBadRow).toMatchObject({ table: 'receipts', id: 3 });
  });
});

describe('the head a signed journal checked once', () => {
  it('is read again when its row is edited in place: the signature and stored hash it keeps are not its own any more', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 2);
    // Another connection commits (nothing chained): the journal reads and checks the file's head, receipts #2.
    tamper(journal.path, () => undefined);
    expect(await journal.lookup('act2:c2')).toMatchObject({ value: 2 });
    tamper(journal.path, (db) => db.prepare('UPDATE receipts SET body = ? WHERE seq = 2').run(forgedResult));
    await expect(journal.lookup('act2:c2')).rejects.toMatchObject(refused);
    await expect(settle(journal, 3, 3)).rejects.toMatchObject(refused);
  });
});

describe('a head sequence number held by two rows', () => {
  for (const table of ['events', 'claims', 'checkpoints'] as const) {
    it(`refuses a forged ${table} row numbered as the signed head`, async () => {
      const journal = journalAt({ sign: { keyDir: keyDir() } });
      await settle(journal, 1, 2);
      const fields = {
        events: { at: Date.now(), type: 'note', body: '{}', key_id: null },
        claims: { at: Date.now(), claim_id: 'x', key: 'act:c9', state: 'released', body: '{}', key_id: null },
        checkpoints: { at: Date.now(), through_seq: 1, through_hash: 'a'.repeat(64), body: '{}', key_id: null },
      }[table];
      tamper(journal.path, (db) => {
        const head = headOf(db);
        const before = db.prepare<[number], { hash: string }>('SELECT prev_hash AS hash FROM receipts WHERE seq = ?').get(head.seq)!;
        appendForged(db, table, fields, { seq: head.seq - 1, hash: before.hash });
      });
      await expect(settle(journal, 3, 3)).rejects.toMatchObject(refused);
    });
  }

  it('does not release a crashed claim with a forged receipt numbered as the claim', async () => {
    const crashed = journalAt({ sign: { keyDir: keyDir() } });
    const prepared = await crashed.prepare(effectCall('c1'));
    if (prepared.status !== 'claimed') throw new Error('not claimed');
    closeJournal(crashed); // the process dies between claim and settle
    tamper(crashed.path, (db) => {
      const claim = db.prepare<[], { seq: number; prev_hash: string }>('SELECT seq, prev_hash FROM claims ORDER BY seq DESC LIMIT 1').get()!;
      appendForged(db, 'receipts', { at: Date.now(), key: 'act:c1', claim_id: prepared.claim.claimId, run_id: 'run-1', tool: 'bump', action_digest: 'act', body: forgedResult, key_id: null }, { seq: claim.seq - 1, hash: claim.prev_hash });
    });
    const restarted = journalAt({ sign: { keyDir: keyDir() } });
    // Found at open, by the walk below the head, before the head's own check would name the pair.
    await expect(restarted.prepare(effectCall('c2'))).rejects.toMatchObject({ ...refused, message: expect.stringContaining('another table holds a row numbered 1 too') });
    await expect(restarted.prepare(effectCall('c1'))).rejects.toMatchObject(refused);
    // verify() names the pair by their shared number, not as a gap.
    expect((await restarted.verify()).firstBadRow).toMatchObject({ id: 1, problem: 'another table holds a row numbered 1 too: one of the two was added' });
  });
});

describe('a head that names the key', () => {
  for (const signature of ['', 'not base64!', 'AAAA']) {
    it(`is refused with the signature ${JSON.stringify(signature)}`, async () => {
      const journal = journalAt({ sign: { keyDir: keyDir() } });
      await settle(journal, 1, 1);
      const { keyId } = loadReceiptSigner(keyDir());
      tamper(journal.path, (db) => {
        const head = appendForged(db, 'claims', { at: Date.now(), claim_id: 'x', key: 'act:c9', state: 'released', body: '{}', key_id: keyId });
        db.prepare('UPDATE claims SET signature = ? WHERE seq = ?').run(signature, head.seq);
      });
      await expect(settle(journal, 2, 2)).rejects.toMatchObject({ ...refused, message: expect.stringContaining('(claims #2)') });
    });
  }

  it('is refused past a gap in the numbers, and as a forged checkpoint, which compaction does not sign over either', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 1);
    tamper(journal.path, (db) => {
      const head = headOf(db);
      appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}', key_id: null }, { seq: head.seq + 5, hash: head.hash });
    });
    await expect(settle(journal, 2, 2)).rejects.toMatchObject({ ...refused, message: expect.stringContaining('events #7') });

    const other = journalAt({ sign: { keyDir: keyDir() } }, journalPath('other.db'));
    await settle(other, 1, 1);
    tamper(other.path, (db) => appendForged(db, 'checkpoints', { at: Date.now(), through_seq: 0, through_hash: '0'.repeat(64), body: '{}', key_id: null }));
    await expect(other.compact({ before: Date.now() + 1 })).rejects.toMatchObject(refused);
    await expect(settle(other, 2, 2)).rejects.toMatchObject({ ...refused, message: expect.stringContaining('(checkpoints #2)') });
  });
});

describe('rows below the head, at open', () => {
  it('refuses a journal in which a forged row shares a number below the signed head: the crashed claim it would release stays refused', async () => {
    const crashed = journalAt({ sign: { keyDir: keyDir() } });
    const prepared = await crashed.prepare(effectCall('c1'));
    if (prepared.status !== 'claimed') throw new Error('not claimed');
    closeJournal(crashed); // the process dies between claim and settle
    // Another process goes on journaling: the claim is no longer the head.
    const other = journalAt({ sign: { keyDir: keyDir() } });
    await settle(other, 2, 3);
    closeJournal(other);
    tamper(crashed.path, (db) => {
      const receipt = db.prepare<[], { seq: number; prev_hash: string }>('SELECT seq, prev_hash FROM receipts ORDER BY seq LIMIT 1').get()!;
      appendForged(db, 'claims', { at: Date.now(), claim_id: prepared.claim.claimId, key: 'act:c1', state: 'released', body: '{}', key_id: null }, { seq: receipt.seq - 1, hash: receipt.prev_hash });
    });
    const restarted = journalAt({ sign: { keyDir: keyDir() } });
    expect(restarted.headProblem()).toContain('does not verify below its head (receipts #2: another table holds a row numbered 2 too');
    await expect(restarted.prepare(effectCall('c2'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    await expect(restarted.signOverUnsignedTail('ops', fileHeadOf(restarted.path).hash)).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });

  it('refuses a journal in which a row below the head was replaced by one that does not hash as stored', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 3);
    closeJournal(journal);
    tamper(journal.path, (db) => db.prepare('UPDATE receipts SET body = ? WHERE seq = 1').run(forgedResult));
    const reopened = journalAt({ sign: { keyDir: keyDir() } });
    await expect(reopened.lookup('act1:c1')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    expect(reopened.headProblem()).toContain('(receipts #1: hash mismatch');
  });
});
