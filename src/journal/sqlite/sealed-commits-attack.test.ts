/**
 * Attacks on the sealed commits, and the ordinary use that must not leave a
 * sealed head unsigned: what the key vouches for must not change for any
 * reader, and a sealed head that writing stops after is signed over.
 */
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JournalPrepareInput } from '../../core/internal.js';
import { isSeal } from './receipt-signer.js';
import { closeJournal, effectCall, journalAt, keyDir, settle, tamper, useTestFolder } from './__fixtures__/tampering.js';
import { receipt } from './__fixtures__/receipt.js';

useTestFolder();

interface StoredRow {
  readonly table: string;
  readonly seq: number;
  readonly type: string | null;
  readonly signature: string | null;
}

function lastRow(path: string): StoredRow | undefined {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare<[], StoredRow>(
        `SELECT 'events' AS "table", seq, type, signature FROM events UNION ALL SELECT 'receipts', seq, NULL, signature FROM receipts
         UNION ALL SELECT 'claims', seq, NULL, signature FROM claims UNION ALL SELECT 'checkpoints', seq, NULL, signature FROM checkpoints ORDER BY seq DESC LIMIT 1`,
      )
      .get();
  } finally {
    db.close();
  }
}

const sealed = (row: StoredRow | undefined): boolean => typeof row?.signature === 'string' && isSeal(row.signature);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('attack: a signature column that holds no text', () => {
  it('a BLOB in the head row’s signature is a bad signature: the journal opens and refuses, and verify() names the row', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 60_000 } });
    await settle(journal, 1, 2);
    const publicKey = journal.publicKey!;
    closeJournal(journal);
    tamper(journal.path, (db) => db.prepare(`UPDATE events SET signature = X'00' WHERE type = 'journal-signed'`).run());
    const reopened = journalAt({ sign: { keyDir: keyDir() } }, journal.path);
    expect(reopened.headProblem()).toContain("is not signed with the journal's key");
    await expect(reopened.lookup('act1:c1')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    expect((await reopened.verify()).firstBadRow).toEqual({ table: 'events', id: 3, problem: 'signature mismatch' });
    // The public key checks no seal: the sealed row the bad signature was to cover is the first it cannot vouch for.
    expect((await journalAt({ publicKey }, journal.path).verify()).firstBadRow).toEqual({ table: 'receipts', id: 2, problem: 'signature missing' });
    expect((await journalAt({ verifyKeyDir: keyDir() }, journal.path).verify()).firstBadRow).toEqual({ table: 'events', id: 3, problem: 'signature mismatch' });
  });

  it('a BLOB in a sealed row’s signature below the head is a seal that does not verify, for verify() with the key', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 60_000 } });
    await settle(journal, 1, 3);
    tamper(journal.path, (db) => db.prepare(`UPDATE receipts SET signature = X'00' WHERE seq = 2`).run());
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'receipts', id: 2, problem: 'signature mismatch' });
  });
});

describe('a sealed head that writing stops after is signed over', () => {
  it('also when its commit came alone, out of a batch that could not commit as one (an effect call whose receipt is recorded)', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 40 } });
    // The first commit, signed: a receipt recorded directly. Its key is what a replayed effect call finds.
    await settle(journal, 1, 1);
    expect(sealed(lastRow(journal.path))).toBe(false);
    // A record-tier call writes no claim; its receipt waits for the next batch.
    const recorded = await journal.prepare({ ...effectCall('r2'), key: 'act:r2', tier: 'record' });
    if (recorded.status !== 'claimed') throw new Error('not claimed');
    await journal.settle(recorded.claim, { ok: true, value: 2, content: 'ok 2', receipt: { ...receipt(2), callId: 'r2', actionDigest: 'act' } });
    // The effect call of the first receipt's key is recorded: its write appends nothing, so the receipt commits alone.
    const replayed: JournalPrepareInput = { ...effectCall('c1'), key: 'act1:c1' };
    expect(await journal.prepare(replayed)).toMatchObject({ status: 'recorded' });
    expect(lastRow(journal.path)).toMatchObject({ table: 'receipts', seq: 2 });
    expect(sealed(lastRow(journal.path))).toBe(true);
    await pause(250);
    expect(lastRow(journal.path)).toMatchObject({ table: 'events', type: 'journal-signed', seq: 3 });
    expect(sealed(lastRow(journal.path))).toBe(false);
  });

  it('also when a compaction found nothing it could drop since (an unresolved claim holds the history)', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 40 } });
    // A claim left open: compaction never passes it.
    expect(await journal.prepare(effectCall('c1'))).toMatchObject({ status: 'claimed' });
    await journal.append({ type: 'note', at: Date.now(), data: {} });
    expect(sealed(lastRow(journal.path))).toBe(true);
    expect(await journal.compact({ before: Date.now() + 1 })).toEqual({ removed: {}, throughSeq: 0 });
    await pause(250);
    expect(lastRow(journal.path)).toMatchObject({ table: 'events', type: 'journal-signed', seq: 3 });
    expect(sealed(lastRow(journal.path))).toBe(false);
  });
});

describe('the clock', () => {
  it('set back while the journal writes does not seal its commits for as long as it was set back', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 40 } });
    await settle(journal, 1, 1);
    expect(sealed(lastRow(journal.path))).toBe(false);
    // The system clock is stepped back an hour (a time sync, a virtual machine resumed).
    const now = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => now() - 3_600_000);
    await pause(80);
    await settle(journal, 2, 2);
    // More than signEveryMs after the last signature: signed, not sealed.
    expect(sealed(lastRow(journal.path))).toBe(false);
  });
});
