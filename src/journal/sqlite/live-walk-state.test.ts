/**
 * Attacks on the state a signed journal keeps of its walk (`ChainStore`:
 * the rows walked, the head vouched for, the floor a compaction set) by a
 * writer without the key, while the journal runs beside other signed
 * journals on the same file.
 */
import { renameSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SqliteJournal } from './sqlite-journal.js';
import { appendForged, closeJournal, effectCall, fileHeadOf, journalAt, keyDir, settle, tamper, useTestFolder } from './__fixtures__/tampering.js';

useTestFolder();

const signed = (): SqliteJournal => journalAt({ sign: { keyDir: keyDir() } });

describe('attack: rows the journal walked, cut from the tail, and the numbers taken again by another signed journal', () => {
  it('a crashed claim the other journal wrote under a number already walked keeps its call in doubt', async () => {
    const running = signed();
    await settle(running, 1, 2);
    const other = signed();
    const cutFrom = running.head().seq + 1;
    // The running journal writes on; the other has not walked these rows.
    await running.append({ type: 'note', at: Date.now(), data: {} });
    await running.append({ type: 'note', at: Date.now(), data: {} });
    await running.unresolved();
    // The writer without the key cuts them: the file ends on a signed row again.
    tamper(running.path, (db) => {
      for (const table of ['events', 'claims', 'receipts', 'checkpoints']) db.prepare(`DELETE FROM ${table} WHERE seq >= ?`).run(cutFrom);
    });
    // The other journal claims a call under the first number cut, signed, and dies before it settles.
    const prepared = await other.prepare(effectCall('c1'));
    expect(prepared.status).toBe('claimed');
    expect(other.head().seq).toBe(cutFrom);
    // The running journal must not run the call again.
    const again = await running.prepare(effectCall('c1')).catch((error: unknown) => error);
    expect(again).not.toMatchObject({ status: 'claimed' });
  });

  it('taken again up to the same number, the head it walked: the claim among them keeps its call in doubt', async () => {
    const running = signed();
    await settle(running, 1, 2);
    const other = signed();
    const cutFrom = running.head().seq + 1;
    await running.append({ type: 'note', at: Date.now(), data: {} });
    await running.unresolved();
    tamper(running.path, (db) => {
      for (const table of ['events', 'claims', 'receipts', 'checkpoints']) db.prepare(`DELETE FROM ${table} WHERE seq >= ?`).run(cutFrom);
    });
    expect((await other.prepare(effectCall('c1'))).status).toBe('claimed');
    expect(other.head().seq).toBe(cutFrom);
    await expect(running.prepare(effectCall('c1'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining('does not verify below its head') });
  });
});

describe('attack: the unsigned tail an operator is shown before signing it over', () => {
  it('a forged row given a signature that does not verify is not left out of the rows named', async () => {
    const first = signed();
    await settle(first, 1, 2);
    closeJournal(first);
    // A forged row carrying a made-up signature, then an unsigned row: the tail named would begin after the forged one.
    let forgedSeq = 0;
    tamper(first.path, (db) => {
      forgedSeq = appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{"forged":true}', key_id: null }).seq;
      db.prepare(`UPDATE events SET signature = ? WHERE seq = ?`).run('A'.repeat(88), forgedSeq);
      appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}', key_id: null });
    });
    const journal = signed();
    const shown = (() => {
      try {
        return journal.unsignedTail();
      } catch (error) {
        return error;
      }
    })();
    const pastTheForgedRow = { from: forgedSeq + 1, through: forgedSeq + 1 };
    // Either refused, or the rows named begin at the forged row: never a tail that leaves it out and signs it over.
    expect(shown).not.toMatchObject(pastTheForgedRow);
    expect(shown).toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining(`events #${forgedSeq}`) });
    // Even given the head it ends on, as an operator shown only the last row would give it.
    const signedOver = await journal.signOverUnsignedTail('ops', fileHeadOf(journal.path).hash).catch((error: unknown) => error);
    expect(signedOver).not.toMatchObject(pastTheForgedRow);
  });
});

describe('attack: the signing key moved aside between runs, and a forged row at the head', () => {
  it('the open that makes a new key does not sign the forged row over: the crashed claim stays in doubt', async () => {
    const crashed = signed();
    await settle(crashed, 1, 2);
    const prepared = await crashed.prepare(effectCall('c1'));
    if (prepared.status !== 'claimed') throw new Error('expected a claim');
    closeJournal(crashed);
    tamper(crashed.path, (db) => {
      appendForged(db, 'claims', { at: Date.now(), claim_id: prepared.claim.claimId, key: prepared.claim.key, state: 'released', body: '{}', key_id: null });
    });
    // Moved, not read: the writer cannot read the key, only the folder it lies in.
    renameSync(keyDir(), `${keyDir()}.moved`);
    const reopened = await Promise.resolve()
      .then(() => signed().prepare(effectCall('c1')))
      .catch((error: unknown) => error);
    expect(reopened).not.toMatchObject({ status: 'claimed' });
    expect(reopened).toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining('not signed with the journal') });
  });
});
