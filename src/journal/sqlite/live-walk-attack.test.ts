/**
 * Attacks on the signed journal's live walk (`ChainStore.catchUp`) by a writer
 * without the key, while a gateway runs.
 */
import { describe, expect, it } from 'vitest';
import type { JournalClaim } from '../../core/internal.js';
import type { SqliteJournal } from './sqlite-journal.js';
import { FOLD_AT } from './receipt-keys.js';
import { appendForged, effectCall, headOf, journalAt, keyDir, settle, tamper, useTestFolder } from './__fixtures__/tampering.js';
import { receipt } from './__fixtures__/receipt.js';

useTestFolder();

const signed = (): SqliteJournal => journalAt({ sign: { keyDir: keyDir() } });
/** What each attack must end in: the journal stops, not an error of another kind that would also leave the forgery unread. */
const stopped = { code: 'CONFIGURATION_INVALID', message: expect.stringContaining('Configuration "journal"') };

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
  it('the open claims below the last signed row are still listed by a journal that opens on it', async () => {
    const crashed = signed();
    const prepared = await crashed.prepare(effectCall('c1'));
    if (prepared.status !== 'claimed') throw new Error('expected a claim');
    crashed.close();
    tamper(crashed.path, (db) => appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}', key_id: null }));
    const opened = signed();
    expect((await opened.unresolved()).map((open) => open.claimId)).toEqual([prepared.claim.claimId]);
    await expect(opened.prepare(effectCall('c2'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });

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
    expect(again).toMatchObject({ status: 'refused' });
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
    expect(again).toMatchObject({ status: 'refused' });
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
    expect(again).toMatchObject(stopped);
  });
});

const forgedBody = JSON.stringify({ ok: true, value: 'FORGED', content: 'FORGED' });

/** A receipt of `key`, numbered `seq` (a number no walk reaches), linked onto nothing, and entered in the receipt key index. */
function forgeIndexedReceipt(path: string, key: string, seq: number): void {
  tamper(path, (db) => {
    appendForged(db, 'receipts', { at: Date.now(), key, claim_id: null, run_id: null, tool: 'write_note', action_digest: key.split(':')[0]!, body: forgedBody, key_id: null }, { seq: seq - 1, hash: 'f'.repeat(64) });
    db.prepare(`INSERT INTO receipt_keys (key, seq) VALUES (?, ?)`).run(key, seq);
  });
}

describe('attack: a forged receipt under a number no walk reaches, named by the receipt key index', () => {
  it('numbered below the chain (negative): not replayed', async () => {
    const running = signed();
    await settle(running, 1, 3);
    forgeIndexedReceipt(running.path, 'act9:c9', -1);
    const found = await running.lookup('act9:c9').catch((error: unknown) => error);
    expect(found).not.toMatchObject({ value: 'FORGED' });
    expect(found).toMatchObject(stopped);
    const prepared = await running.prepare({ ...effectCall('c9'), key: 'act9:c9', actionDigest: 'act9' }).catch((error: unknown) => error);
    expect(prepared).not.toMatchObject({ status: 'recorded' });
    expect(prepared).toMatchObject(stopped);
  });

  it('numbered inside the rows a compaction dropped: not replayed', async () => {
    const running = signed();
    await settle(running, 1, 6);
    await running.compact({ before: Date.now() + 1 });
    await settle(running, 7, 7);
    forgeIndexedReceipt(running.path, 'act9:c9', 3);
    const found = await running.lookup('act9:c9').catch((error: unknown) => error);
    expect(found).not.toMatchObject({ value: 'FORGED' });
    expect(found).toMatchObject(stopped);
  });

  it('numbered below the chain: not replayed by a journal opened on the file either', async () => {
    const running = signed();
    await settle(running, 1, 3);
    running.close();
    forgeIndexedReceipt(running.path, 'act9:c9', -1);
    const reopened = await Promise.resolve()
      .then(() => signed())
      .then((journal) => journal.lookup('act9:c9'))
      .catch((error: unknown) => error);
    expect(reopened).not.toMatchObject({ value: 'FORGED' });
    expect(reopened).toMatchObject(stopped);
  });
});


function tamperedCount(path: string, sql: string): number {
  let count = 0;
  tamper(path, (db) => {
    count = db.prepare<[], number>(sql).pluck().get() ?? 0;
  });
  return count;
}

describe('attack: a receipt the journal walked, deleted from the file', () => {
  /** An effect-tier call of `callId` claimed and settled by `journal`: its receipt closes its claim. */
  async function effectSettled(journal: SqliteJournal, callId: string): Promise<void> {
    const prepared = await journal.prepare(effectCall(callId));
    if (prepared.status !== 'claimed') throw new Error('expected a claim');
    await journal.settle(prepared.claim, { ok: true, value: 1, content: 'ran once', receipt: { ...receipt(1), callId, actionDigest: 'act' } });
    journal.flush();
  }

  it('from the tail: the call it recorded is not run again', async () => {
    const running = signed();
    await effectSettled(running, 'c1');
    tamper(running.path, (db) => db.prepare(`DELETE FROM receipts WHERE key = 'act:c1'`).run());
    const again = await running.prepare(effectCall('c1')).catch((error: unknown) => error);
    expect(again).not.toMatchObject({ status: 'claimed' });
    expect(again).toMatchObject(stopped);
  });

  it('named by the receipt key index: the call it recorded is not run again', async () => {
    const running = signed();
    await effectSettled(running, 'c1');
    // Another process folds the tail: the receipt is in the index, below its reach.
    const other = signed();
    await settle(other, 10, FOLD_AT + 10);
    await running.lookup('act:c1');
    expect(tamperedCount(running.path, `SELECT count(*) FROM receipt_keys WHERE key = 'act:c1'`)).toBe(1);
    tamper(running.path, (db) => db.prepare(`DELETE FROM receipts WHERE key = 'act:c1'`).run());
    const again = await running.prepare(effectCall('c1')).catch((error: unknown) => error);
    expect(again).not.toMatchObject({ status: 'claimed' });
    expect(again).toMatchObject(stopped);
  });

  it('dropped by a compaction, its own or another process\'s, it is gone without a refusal', async () => {
    const running = signed();
    await settle(running, 1, 2);
    const other = signed();
    await other.compact({ before: Date.now() + 1 });
    await settle(other, 3, 3);
    expect(await running.lookup('act1:c1')).toBeUndefined();
    await settle(running, 4, 5);
    await running.compact({ before: Date.now() + 1 });
    expect(await running.lookup('act4:c4')).toBeUndefined();
    expect(await running.prepare(effectCall('c9'))).toMatchObject({ status: 'claimed' });
  });
});


describe('attack: the claim rows unresolved() lists, read again from the file', () => {
  it('a crashed claim row deleted after the walk is still listed', async () => {
    const { running, claim } = await crashedClaimRefused();
    tamper(running.path, (db) => db.prepare(`DELETE FROM claims WHERE claim_id = ?`).run(claim.claimId));
    expect((await running.unresolved()).map((open) => open.claimId)).toEqual([claim.claimId]);
    await expect(running.prepare(effectCall('c3'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining('does not verify below its head') });
  });

  it('a crashed claim row edited in place after the walk is not listed as edited', async () => {
    const { running, claim } = await crashedClaimRefused();
    tamper(running.path, (db) => db.prepare(`UPDATE claims SET body = json_set(body, '$.tool', 'harmless') WHERE claim_id = ?`).run(claim.claimId));
    const listed = await running.unresolved();
    expect(listed.map((open) => open.claimId)).toEqual([claim.claimId]);
    expect(listed[0]?.toolName).not.toBe('harmless');
    await expect(running.prepare(effectCall('c3'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining('does not verify below its head') });
  });
});

describe('attack: the receipts recordings() reads from the file', () => {
  async function recorded(journal: SqliteJournal, callId: string): Promise<void> {
    const prepared = await journal.prepare({ ...effectCall(callId), tier: 'record' });
    if (prepared.status !== 'claimed') throw new Error('expected a claim');
    await journal.settle(prepared.claim, { ok: true, value: callId, content: `ok ${callId}`, receipt: { ...receipt(1), callId, actionDigest: 'act' } });
    journal.flush();
  }

  it('a receipt of the run edited in place is not returned', async () => {
    const running = signed();
    await recorded(running, 'c1');
    await recorded(running, 'c2');
    tamper(running.path, (db) => db.prepare(`UPDATE receipts SET body = ? WHERE key = 'act:c1'`).run(forgedBody));
    const recordings = await running.recordings({ runId: 'run-1' }).catch((error: unknown) => error);
    expect(recordings).not.toContainEqual(expect.objectContaining({ value: 'FORGED' }));
    expect(recordings).toMatchObject(stopped);
  });

  it('a receipt of the run forged below the chain, where the run index now says the run begins, is not returned', async () => {
    const running = signed();
    await recorded(running, 'c1');
    tamper(running.path, (db) => {
      appendForged(db, 'receipts', { at: Date.now(), key: 'act:c0', claim_id: null, run_id: 'run-1', tool: 'write_note', action_digest: 'act', body: forgedBody, key_id: null }, { seq: -2, hash: 'f'.repeat(64) });
      db.prepare(`UPDATE runs SET first_seq = -1 WHERE run_id = 'run-1'`).run();
    });
    const recordings = await running.recordings({ runId: 'run-1' }).catch((error: unknown) => error);
    expect(recordings).not.toContainEqual(expect.objectContaining({ value: 'FORGED' }));
    expect(recordings).toMatchObject(stopped);
  });
});

describe('attack: a walked receipt changed or deleted before a fold enters the tail in the receipt key index', () => {
  async function effectSettled(journal: SqliteJournal, callId: string): Promise<void> {
    const prepared = await journal.prepare(effectCall(callId));
    if (prepared.status !== 'claimed') throw new Error('expected a claim');
    await journal.settle(prepared.claim, { ok: true, value: 1, content: 'ran once', receipt: { ...receipt(1), callId, actionDigest: 'act' } });
    journal.flush();
    // Below the head: the head itself is checked at every read.
    await journal.append({ type: 'note', at: Date.now(), data: {} });
  }

  /** The attacker folds the tail as the file now reads: every receipt into the index under the key it holds, and the reach to the head. */
  function foldAsTheFileReads(path: string): void {
    tamper(path, (db) => {
      db.exec(`INSERT OR IGNORE INTO receipt_keys (key, seq) SELECT key, seq FROM receipts`);
      db.prepare(`INSERT OR REPLACE INTO meta (name, value) VALUES ('receipt_keys_through', ?)`).run(String(headOf(db).seq));
    });
  }

  it('its key changed in place, then folded by the journal itself: the call it recorded is not run again', async () => {
    const running = signed();
    await effectSettled(running, 'c1');
    tamper(running.path, (db) => db.prepare(`UPDATE receipts SET key = 'zzz' WHERE key = 'act:c1'`).run());
    await settle(running, 10, FOLD_AT + 10).catch(() => undefined);
    const again = await running.prepare(effectCall('c1')).catch((error: unknown) => error);
    expect(again).not.toMatchObject({ status: 'claimed' });
    expect(again).toMatchObject(stopped);
  });

  it('its key changed in place, and the index folded as the file now reads: the call it recorded is not run again', async () => {
    const running = signed();
    await effectSettled(running, 'c1');
    tamper(running.path, (db) => db.prepare(`UPDATE receipts SET key = 'zzz' WHERE key = 'act:c1'`).run());
    foldAsTheFileReads(running.path);
    const again = await running.prepare(effectCall('c1')).catch((error: unknown) => error);
    expect(again).not.toMatchObject({ status: 'claimed' });
    expect(again).toMatchObject(stopped);
  });

  it('deleted, and the index folded as the file now reads: the call it recorded is not run again', async () => {
    const running = signed();
    await effectSettled(running, 'c1');
    tamper(running.path, (db) => db.prepare(`DELETE FROM receipts WHERE key = 'act:c1'`).run());
    foldAsTheFileReads(running.path);
    const again = await running.prepare(effectCall('c1')).catch((error: unknown) => error);
    expect(again).not.toMatchObject({ status: 'claimed' });
    expect(again).toMatchObject(stopped);
  });
});

describe('attack: the claim row a refusal names, read again from the file', () => {
  it('edited in place after the walk: the refusal does not show the edit, and the journal stops', async () => {
    const { running, claim } = await crashedClaimRefused();
    // Below the head: the head itself is checked at every read.
    await running.append({ type: 'note', at: Date.now(), data: {} });
    tamper(running.path, (db) => db.prepare(`UPDATE claims SET body = json_set(body, '$.tool', 'harmless') WHERE claim_id = ?`).run(claim.claimId));
    const refused = await running.prepare(effectCall('c3'));
    expect(refused.status).toBe('refused');
    expect(JSON.stringify(refused)).not.toContain('harmless');
    await expect(running.prepare(effectCall('c4'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });
});
