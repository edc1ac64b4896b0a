/**
 * Attacks on the sealed commits, and the ordinary use that must not leave a
 * sealed head unsigned: what the key vouches for must not change for any
 * reader, and a sealed head that writing stops after is signed over.
 */
import { describe, expect, it } from 'vitest';
import { closeJournal, journalAt, keyDir, settle, tamper } from './__fixtures__/tampering.js';

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
