/**
 * Attacks on the signed journal's live walk (`ChainStore.catchUp`) by a writer
 * without the key, while a gateway runs.
 */
import { describe, expect, it } from 'vitest';
import type { JournalClaim } from '../../core/internal.js';
import type { SqliteJournal } from './sqlite-journal.js';
import { appendForged, effectCall, headOf, journalAt, keyDir, settle, tamper } from './__fixtures__/tampering.js';

const signed = (): SqliteJournal => journalAt({ sign: { keyDir: keyDir() } });

async function crashedClaimRefused(): Promise<{ running: SqliteJournal; claim: JournalClaim }> {
  const crashed = signed();
  const prepared = await crashed.prepare(effectCall('c1'));
  if (prepared.status !== 'claimed') throw new Error('expected a claim');
  crashed.close();
  const running = signed();
  expect((await running.prepare(effectCall('c2'))).status).toBe('refused');
  return { running, claim: prepared.claim };
}

describe('attack: a forged row past the signed head', () => {
  it('walked by unresolved() and then removed: the crashed claim stays in doubt', async () => {
    const { running, claim } = await crashedClaimRefused();
    let forged = 0;
    tamper(running.path, (db) => {
      forged = appendForged(db, 'claims', { at: Date.now(), claim_id: claim.claimId, key: claim.key, state: 'released', body: '{}', key_id: null }).seq;
    });
    await running.unresolved().catch(() => undefined);
    tamper(running.path, (db) => db.prepare(`DELETE FROM claims WHERE seq = ?`).run(forged));
    const again = await running.prepare(effectCall('c3')).catch((error: unknown) => error);
    expect(again).not.toMatchObject({ status: 'claimed' });
  });

  it('walked by a refused prepare() and then removed: the crashed claim stays in doubt', async () => {
    const { running, claim } = await crashedClaimRefused();
    let forged = 0;
    tamper(running.path, (db) => {
      forged = appendForged(db, 'claims', { at: Date.now(), claim_id: claim.claimId, key: claim.key, state: 'released', body: '{}', key_id: null }).seq;
    });
    await expect(running.prepare(effectCall('c3'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    tamper(running.path, (db) => db.prepare(`DELETE FROM claims WHERE seq = ?`).run(forged));
    const again = await running.prepare(effectCall('c4')).catch((error: unknown) => error);
    expect(again).not.toMatchObject({ status: 'claimed' });
  });

  it('a forged receipt walked past the head and then removed is not replayed from the tail', async () => {
    const running = signed();
    await settle(running, 1, 2);
    let forged = 0;
    tamper(running.path, (db) => {
      forged = appendForged(db, 'receipts', { at: Date.now(), key: 'act9:c9', claim_id: null, run_id: null, tool: 'write_note', action_digest: 'act9', body: '{"ok":true,"value":"FORGED"}', key_id: null }).seq;
    });
    await running.unresolved().catch(() => undefined);
    tamper(running.path, (db) => db.prepare(`DELETE FROM receipts WHERE seq = ?`).run(forged));
    expect(await running.lookup('act9:c9')).toBeUndefined();
  });

  it('a crashed claim cut out and a forged checkpoint past the head that covers the gap, walked and then removed: the claim is not forgotten', async () => {
    const running = signed();
    await settle(running, 1, 2);
    // Another process claims and dies; a third goes on writing.
    const crashed = signed();
    const prepared = await crashed.prepare(effectCall('c1'));
    if (prepared.status !== 'claimed') throw new Error('expected a claim');
    const claimSeq = crashed.head().seq;
    crashed.close();
    await settle(signed(), 3, 4);
    let checkpoint = 0;
    tamper(running.path, (db) => {
      const claim = db.prepare<[number], { hash: string }>(`SELECT hash FROM claims WHERE seq = ?`).get(claimSeq)!;
      db.prepare(`DELETE FROM claims WHERE seq = ?`).run(claimSeq);
      checkpoint = appendForged(db, 'checkpoints', { at: Date.now(), through_seq: claimSeq, through_hash: claim.hash, body: '{}', key_id: null }, headOf(db)).seq;
    });
    await running.unresolved().catch(() => undefined);
    tamper(running.path, (db) => db.prepare(`DELETE FROM checkpoints WHERE seq = ?`).run(checkpoint));
    const again = await running.prepare(effectCall('c5')).catch((error: unknown) => error);
    expect(again).not.toMatchObject({ status: 'claimed' });
  });
});
