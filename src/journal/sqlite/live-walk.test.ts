/**
 * A writer with the journal file but not the signing key, while a signed
 * journal runs: it adds or changes rows below the head the journal already
 * checked, and expects the journal to act on them (a crashed claim freed, a
 * forged result replayed). The journal walks each row another connection
 * commits before it reads it, and reads no row from the file it did not walk
 * (`ChainStore.catchUp`).
 */
import { describe, expect, it } from 'vitest';
import type { JournalClaim, RecordedResult } from '../../core/internal.js';
import { hashedFields, hashRow } from './row-hash.js';
import type { SqliteJournal } from './sqlite-journal.js';
import { appendForged, effectCall, journalAt, keyDir, settle, tamper, useTestFolder } from './__fixtures__/tampering.js';
import { receipt } from './__fixtures__/receipt.js';

useTestFolder();

const signed = (): SqliteJournal => journalAt({ sign: { keyDir: keyDir() } });
const belowHead = { code: 'CONFIGURATION_INVALID', message: expect.stringContaining('does not verify below its head') };
const forgedResult = JSON.stringify({ ok: true, value: 'FORGED', content: 'FORGED' });

/** A claim another process left open (it died between claim and settle), and a journal that has since refused its action. */
async function crashedClaimRefused(): Promise<{ running: SqliteJournal; claim: JournalClaim; claimSeq: number }> {
  const crashed = signed();
  const prepared = await crashed.prepare(effectCall('c1'));
  if (prepared.status !== 'claimed') throw new Error('expected a claim');
  const claimSeq = crashed.head().seq;
  crashed.close();
  const running = signed();
  expect((await running.prepare(effectCall('c2'))).status).toBe('refused');
  return { running, claim: prepared.claim, claimSeq };
}

/** A `released` row for `claim`, numbered `seq`: linked onto the row before that number, as a writer without the key can. */
function forgeReleased(path: string, claim: JournalClaim, seq: number): void {
  tamper(path, (db) => {
    const before = db.prepare<[{ seq: number }], { hash: string }>(`SELECT hash FROM events WHERE seq = @seq UNION ALL SELECT hash FROM claims WHERE seq = @seq UNION ALL SELECT hash FROM receipts WHERE seq = @seq`).get({ seq: seq - 1 })!;
    appendForged(db, 'claims', { at: Date.now(), claim_id: claim.claimId, key: claim.key, state: 'released', body: '{}', key_id: null }, { seq: seq - 1, hash: before.hash });
  });
}

describe('a signed journal while it runs', () => {
  it('never reads a "released" row forged under a number it already walked: the crashed claim stays in doubt', async () => {
    const { running, claim, claimSeq } = await crashedClaimRefused();
    // Another process goes on writing, and the running journal walks its rows.
    const other = signed();
    await settle(other, 1, 2);
    await running.append({ type: 'note', at: Date.now(), data: {} });
    forgeReleased(running.path, claim, claimSeq + 1);
    // The other process commits again, so the running journal walks once more: the forged row is below where it walks.
    await settle(other, 3, 3);
    expect((await running.prepare(effectCall('c3'))).status).toBe('refused');
    expect((await running.unresolved()).map((open) => open.claimId)).toEqual([claim.claimId]);
    expect((await running.verify()).firstBadRow).toMatchObject({ id: claimSeq + 1 });
  });

  it('refuses a "released" row forged among rows another process committed that it has not walked yet', async () => {
    const { running, claim, claimSeq } = await crashedClaimRefused();
    const other = signed();
    await settle(other, 1, 3);
    // Under the number of the other process's first receipt, which the running journal has not read.
    forgeReleased(running.path, claim, claimSeq + 1);
    await expect(running.prepare(effectCall('c3'))).rejects.toMatchObject(belowHead);
    expect((await running.unresolved()).map((open) => open.claimId)).toEqual([claim.claimId]);
    // For good: a later commit of the other process does not clear it.
    await expect(running.lookup(`act1:c1`)).rejects.toMatchObject(belowHead);
  });

  it('does not replay a receipt forged under a number it walked and entered in the receipt key index', async () => {
    const running = signed();
    await settle(running, 1, 2);
    await running.append({ type: 'note', at: Date.now(), data: {} });
    const event = running.head();
    await settle(running, 3, 3);
    const key = 'act9:c9';
    expect(await running.lookup(key)).toBeUndefined();
    // Beside the event, under its number (the receipts table holds no row so numbered), and in the index.
    tamper(running.path, (db) => {
      const { prev_hash: previous } = db.prepare<[number], { prev_hash: string }>(`SELECT prev_hash FROM events WHERE seq = ?`).get(event.seq)!;
      appendForged(db, 'receipts', { at: Date.now(), key, claim_id: null, run_id: null, tool: 'write_note', action_digest: 'act9', body: forgedResult, key_id: null }, { seq: event.seq - 1, hash: previous });
      db.prepare(`INSERT INTO receipt_keys (key, seq) VALUES (?, ?)`).run(key, event.seq);
    });
    await expect(running.lookup(key)).rejects.toMatchObject(belowHead);
    await expect(running.prepare({ ...effectCall('c9'), key, tier: 'record' })).rejects.toMatchObject(belowHead);
  });

  it('does not replay a receipt of its own edited in place after it walked it', async () => {
    const running = signed();
    await settle(running, 1, 3);
    tamper(running.path, (db) => db.prepare(`UPDATE receipts SET body = ? WHERE key = 'act2:c2'`).run(forgedResult));
    await expect(running.lookup('act2:c2')).rejects.toMatchObject(belowHead);
  });

  it('does not replay a receipt edited in place with its stored hash recomputed: the next row links onto the old one', async () => {
    const running = signed();
    await settle(running, 1, 3);
    tamper(running.path, (db) => {
      const row = db.prepare<[], Record<string, unknown> & { seq: number; prev_hash: string }>(`SELECT * FROM receipts WHERE key = 'act2:c2'`).get()!;
      const forged = { ...hashedFields(row), body: forgedResult };
      db.prepare(`UPDATE receipts SET body = ?, hash = ? WHERE seq = ?`).run(forgedResult, hashRow(row.prev_hash, 'receipts', row.seq, forged), row.seq);
    });
    await expect(running.lookup('act2:c2')).rejects.toMatchObject(belowHead);
  });

  it('goes on across a compaction another process made, dropping rows it had not walked', async () => {
    const running = signed();
    await settle(running, 1, 2);
    const other = signed();
    await settle(other, 3, 6);
    await other.compact({ before: Date.now() + 1 });
    await settle(other, 7, 7);
    // The running journal walks on from the rows the compaction left, vouched for by the checkpoint it walks with them.
    await settle(running, 8, 8);
    expect(((await running.lookup('act7:c7')) as RecordedResult).value).toBe(7);
    expect(await running.lookup('act4:c4')).toBeUndefined();
    expect((await running.verify()).ok).toBe(true);
  });

  it('refuses rows another process dropped from its walk without a checkpoint', async () => {
    const running = signed();
    await settle(running, 1, 2);
    const other = signed();
    const prepared = await other.prepare(effectCall('c5'));
    expect(prepared.status).toBe('claimed');
    await settle(other, 3, 4);
    // The claim is cut out, and the rows after it kept: the running journal would never learn of the claim.
    tamper(running.path, (db) => db.prepare(`DELETE FROM claims WHERE claim_id = ?`).run((prepared as { claim: JournalClaim }).claim.claimId));
    await expect(running.prepare(effectCall('c6'))).rejects.toMatchObject(belowHead);
  });

  it('refuses a receipt key index whose reach another writer moved without folding the receipts below it', async () => {
    const running = signed();
    await settle(running, 1, 3);
    expect(((await running.lookup('act2:c2')) as RecordedResult).value).toBe(2);
    const head = running.head().seq;
    tamper(running.path, (db) => db.prepare(`INSERT OR REPLACE INTO meta (name, value) VALUES ('receipt_keys_through', ?)`).run(String(head)));
    await expect(running.lookup('act2:c2')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining('leaves out receipts') });
    await expect(running.settle(undefined, { ok: true, value: 9, content: 'ok', receipt: receipt(9) })).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });

  it('reads the rows it signs over itself: a claim left in them keeps its action in doubt', async () => {
    const running = signed();
    await settle(running, 1, 2);
    // A process with signing off claims an action and dies: the file ends on rows the key did not sign.
    const unsigned = journalAt({});
    expect((await unsigned.prepare(effectCall('c1'))).status).toBe('claimed');
    unsigned.close();
    await expect(running.prepare(effectCall('c2'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    // The operator checked those rows and signs them over through the running journal.
    expect(await running.signOverUnsignedTail('operator', running.unsignedTail()!.head)).toBeDefined();
    expect((await running.prepare(effectCall('c2'))).status).toBe('refused');
    expect((await running.unresolved()).map((open) => open.key)).toEqual(['act:c1']);
  });
});
