/**
 * A signed journal links, replays and anchors only onto a head its key
 * signed, and takes back rows written without the key only on an operator's
 * word: a writer with the file but not the key appends, forges and strips,
 * and the journal refuses to vouch for what it did.
 */
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { ChainStore } from './chain-store.js';
import { readJournalAnchor } from './journal-anchor.js';
import { CHAINED_TABLES } from './schema.js';
import { loadReceiptSigner } from './receipt-signer.js';
import { GENESIS_HASH, hashedFields, hashRow } from './row-hash.js';
import type { SqliteJournal } from './sqlite-journal.js';
import { receipt } from './__fixtures__/receipt.js';
import { appendForged, closeJournal, effectCall, fileHeadOf, journalAt, journalPath, keyDir, settle, tamper, useTestFolder } from './__fixtures__/tampering.js';

useTestFolder();

/** An event appended after the head and signed with a key that is not the journal's. */
function appendSignedByStranger(path: string): void {
  const stranger = loadReceiptSigner(journalPath('stranger-keys'));
  tamper(path, (db) => {
    const head = appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}', key_id: stranger.keyId });
    db.prepare('UPDATE events SET signature = ? WHERE seq = ?').run(stranger.sign(head.hash), head.seq);
  });
}

function lastEvent(path: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT seq, type, key_id FROM events ORDER BY seq DESC LIMIT 1').get();
  } finally {
    db.close();
  }
}

describe('a signed journal links only onto a head its key signed', () => {
  const refused = { code: 'CONFIGURATION_INVALID', message: expect.stringContaining('ends on a row that is not signed with the journal\'s key (claims #2)') };

  it('refuses to sign over a forged "released" row, so the crashed effect stays refused and verify() keeps naming the row', async () => {
    const crashed = journalAt({ sign: { keyDir: keyDir() } });
    const prepared = await crashed.prepare(effectCall('c1'));
    expect(prepared.status).toBe('claimed');
    crashed.close(); // the process dies between claim and settle
    const [claim] = await journalAt({ sign: { keyDir: keyDir() } }).unresolved();
    tamper(crashed.path, (db) => appendForged(db, 'claims', { at: Date.now(), claim_id: claim!.claimId, key: claim!.key, state: 'released', body: '{}' }));
    // A restarted process takes the claim for released; the next claim of the action would run the effect again.
    const restarted = journalAt({ sign: { keyDir: keyDir() } });
    await expect(restarted.prepare(effectCall('c2'))).rejects.toMatchObject(refused);
    await expect(restarted.append({ type: 'note', at: Date.now(), data: {} })).rejects.toMatchObject(refused);
    await expect(restarted.settle(undefined, { ok: true, value: 1, content: 'ok', receipt: receipt(1) })).rejects.toMatchObject(refused);
    expect((await restarted.verify()).firstBadRow).toEqual({ table: 'claims', id: 2, problem: 'signature missing' });
  });

  it('replays no forged receipt: neither one that settles the crashed claim for its own retry, nor one looked up by key', async () => {
    const crashed = journalAt({ sign: { keyDir: keyDir() } });
    const prepared = await crashed.prepare(effectCall('c1'));
    if (prepared.status !== 'claimed') throw new Error('not claimed');
    crashed.close();
    tamper(crashed.path, (db) =>
      appendForged(db, 'receipts', { at: Date.now(), key: 'act:c1', claim_id: prepared.claim.claimId, run_id: 'run-1', tool: 'bump', action_digest: 'act', body: JSON.stringify({ ok: true, value: 'FORGED', content: 'FORGED' }) }),
    );
    const restarted = journalAt({ sign: { keyDir: keyDir() } });
    // The retry would have been answered with the attacker's result, and the effect taken for done.
    await expect(restarted.prepare(effectCall('c1'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    await expect(restarted.prepare({ ...effectCall('c1'), tier: 'record' })).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    await expect(restarted.lookup('act:c1')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });

  it('refuses the same from a journal that was open before the row was appended, whose own head is cached', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 1);
    tamper(journal.path, (db) => appendForged(db, 'claims', { at: Date.now(), claim_id: 'x', key: 'act:c9', state: 'released', body: '{}' }));
    await expect(settle(journal, 2, 2)).rejects.toMatchObject(refused);
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'claims', id: 2, problem: 'signature missing: the row is unsigned and no later signed row covers it' });
  });

  it('refuses a head signed with another key, and a head whose signature does not verify', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 1);
    appendSignedByStranger(journal.path);
    await expect(settle(journal, 2, 2)).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining('(events #2)') });

    const other = journalAt({ sign: { keyDir: keyDir() } }, journalPath('other.db'));
    await settle(other, 1, 2);
    tamper(other.path, (db) => db.prepare('UPDATE receipts SET signature = (SELECT signature FROM receipts WHERE seq = 1) WHERE seq = 2').run());
    const reopened = journalAt({ sign: { keyDir: keyDir() } }, other.path);
    await expect(settle(reopened, 3, 3)).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining('(receipts #2)') });
  });

  it('refuses a forged row followed by a copy of an earlier signed row, whose stored hash and signature verify but are not its own', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 2);
    tamper(journal.path, (db) => {
      const forged = appendForged(db, 'claims', { at: Date.now(), claim_id: 'x', key: 'act:c9', state: 'released', body: '{}' });
      const signed = db.prepare<[], Record<string, unknown>>('SELECT * FROM receipts WHERE seq = 2').get()!;
      const columns = Object.keys(signed);
      db.prepare(`INSERT INTO receipts (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`).run({ ...signed, seq: forged.seq + 1, prev_hash: forged.hash });
    });
    await expect(settle(journal, 3, 3)).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining('receipts #4') });
  });

  it('links onto the signed commits of another journal on the file, and signs from its next row on a journal that never was', async () => {
    const first = journalAt({ sign: { keyDir: keyDir() } });
    const second = journalAt({ sign: { keyDir: keyDir() } });
    for (let index = 1; index <= 6; index += 2) {
      await settle(first, index, index);
      await settle(second, index + 1, index + 1);
    }
    expect(await first.verify()).toMatchObject({ ok: true, rows: 6 });

    // A journal kept unsigned, then opened with a key made for it: its history is signed over once, at open.
    const path = journalPath('unsigned.db');
    await settle(journalAt({}, path), 1, 3);
    closeJournal(journalAt({ sign: { keyDir: journalPath('new-keys') } }, path));
    expect(lastEvent(path)).toMatchObject({ seq: 4, type: 'journal-signed' });
    const signed = journalAt({ sign: { keyDir: journalPath('new-keys') } }, path);
    await settle(signed, 5, 5);
    expect(await signed.verify()).toMatchObject({ ok: true, rows: 5 });
  });

  it('refuses a chain stripped of every signature and re-linked, once its key exists: it is not a history older than the key', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 3);
    closeJournal(journal);
    // Every row, of every table (the event that signs the sealed receipts at close too), stripped and re-linked.
    let last = '';
    tamper(journal.path, (db) => {
      let previous = GENESIS_HASH;
      const rows = CHAINED_TABLES.flatMap((table) => db.prepare<[], Record<string, unknown> & { seq: number }>(`SELECT * FROM ${table}`).all().map((row) => ({ table, row })));
      for (const { table, row } of rows.sort((left, right) => left.row.seq - right.row.seq)) {
        const fields = { ...hashedFields(row), key_id: null };
        const hash = hashRow(previous, table, row.seq, fields);
        db.prepare(`UPDATE ${table} SET key_id = NULL, signature = NULL, prev_hash = ?, hash = ? WHERE seq = ?`).run(previous, hash, row.seq);
        previous = hash;
        last = `${table} #${row.seq}`;
      }
    });
    const reopened = journalAt({ sign: { keyDir: keyDir() } });
    await expect(settle(reopened, 4, 4)).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining(`(${last})`) });
  });

  it('does not anchor a forged head under the journal key: the anchor stays where the signed chain ended, and the refusal is reported', async () => {
    const anchorFile = journalPath('journal.anchor');
    const journal = journalAt({ sign: { keyDir: keyDir() }, anchor: anchorFile });
    await settle(journal, 1, 2);
    closeJournal(journal);
    const anchored = readJournalAnchor(anchorFile);
    const signedHead = fileHeadOf(journal.path);
    expect(anchored).toMatchObject({ rows: signedHead.seq, head: signedHead.hash });
    tamper(journal.path, (db) => appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}' }));
    const problems: string[] = [];
    closeJournal(journalAt({ sign: { keyDir: keyDir() }, anchor: anchorFile, onAnchorProblem: (problem) => problems.push(problem) }));
    expect(readJournalAnchor(anchorFile)).toEqual(anchored);
    expect(problems).toEqual([expect.stringContaining(`stays where the signed chain ended: `)]);
    expect(problems[0]).toMatch(/^the journal anchor .* stays where the signed chain ended: .*ends on a row that is not signed with the journal's key \(events #(\d+)\)/);
    expect(problems[0]).toContain(`(events #${signedHead.seq + 1})`);
  });
});

/** Rows 1–2 written with the key, then `through` more with signing off: the journal on the file with signing off, still open. */
async function signingTurnedOff(path: string, through: number): Promise<SqliteJournal> {
  // Every commit signed, so the signed rows are the two receipts, rows 1–2, and no event signs a sealed one at close.
  const first = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 0 } }, path);
  await settle(first, 1, 2);
  closeJournal(first);
  const unsigned = journalAt({}, path);
  await settle(unsigned, 3, through);
  return unsigned;
}

describe('signing over an unsigned tail, on an operator’s word', () => {
  it('signs over the rows written while signing was off, once asked, and the journal writes again', async () => {
    const path = journalPath('toggled.db');
    closeJournal(await signingTurnedOff(path, 4));
    const signed = journalAt({ sign: { keyDir: keyDir() } }, path);
    await expect(settle(signed, 5, 5)).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    const tail = signed.unsignedTail()!;
    expect(tail).toEqual({ from: 3, through: 4, head: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await signed.signOverUnsignedTail('ops', tail.head)).toEqual(tail);
    expect(lastEvent(path)).toMatchObject({ seq: 5, type: 'journal-signed' });
    expect(signed.headProblem()).toBeUndefined();
    await settle(signed, 5, 5);
    expect(await signed.verify()).toMatchObject({ ok: true, rows: 6 });
    expect(signed.unsignedTail()).toBeUndefined();
    expect(await signed.signOverUnsignedTail('ops', tail.head)).toBeUndefined();
  });

  it('never signs over a head that names a key without its signature, or a row of another key', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 1);
    appendSignedByStranger(journal.path);
    expect(journal.unsignedTail()).toBeUndefined();
    expect(await journal.signOverUnsignedTail('ops', fileHeadOf(journal.path).hash)).toBeUndefined();
    expect(journal.headProblem()).toContain('(events #2)');
  });

  it('needs the key', async () => {
    const journal = journalAt();
    await expect(journal.signOverUnsignedTail('ops', GENESIS_HASH)).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });

  it('a sign-over that does not commit leaves the head as unvouched as it was', async () => {
    const path = journalPath('toggled.db');
    closeJournal(await signingTurnedOff(path, 3));
    const db = new Database(path);
    try {
      const store = new ChainStore(db, loadReceiptSigner(keyDir()));
      const tail = store.unsignedTail()!;
      vi.spyOn(store, 'append').mockImplementationOnce(() => {
        throw new Error('disk full');
      });
      expect(() => store.signOverTail('ops', tail.head)).toThrow('disk full');
      // Still refused: the journal does not link onto the rows it failed to sign over.
      expect(() => store.checkHead()).toThrow("ends on a row that is not signed with the journal's key");
    } finally {
      db.close();
    }
  });

  it('signs over only the rows that end on the head the operator was shown: a row appended since is not signed over unseen', async () => {
    const path = journalPath('toggled.db');
    const unsigned = await signingTurnedOff(path, 3);
    const signed = journalAt({ sign: { keyDir: keyDir() } }, path);
    const shown = signed.unsignedTail()!;
    // Between the operator's check and their answer, another row lands without the key.
    await settle(unsigned, 4, 4);
    await expect(signed.signOverUnsignedTail('ops', shown.head)).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringContaining('rows were appended or rewritten since') });
    expect(signed.headProblem()).toContain("ends on a row that is not signed with the journal's key");
    // Named again, the rows the operator now checks are signed over.
    const again = signed.unsignedTail()!;
    expect(again).toMatchObject({ from: 3, through: 4 });
    expect(await signed.signOverUnsignedTail('ops', again.head)).toEqual(again);
    expect(signed.headProblem()).toBeUndefined();
  });
});
