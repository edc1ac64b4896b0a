/**
 * An attacker with write access to the journal file but not the signing key:
 * each test tampers the way such a writer can (raw SQL, hashes recomputed,
 * triggers dropped and put back) and expects `verify()` to name the damage.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { loadReceiptSigner } from './receipt-signer.js';
import { hashedFields, hashRow } from './row-hash.js';
import { CHAINED_TABLES, SCHEMA_VERSION, type ChainedTable } from './schema.js';
import type { SqliteJournal } from './sqlite-journal.js';
import { receipt } from './__fixtures__/receipt.js';
import { appendForged, closeJournal, effectCall, journalAt, journalPath, keyDir, settle, tamper, writeSchema1Journal, forgeReceiptRelinked, useTestFolder } from './__fixtures__/tampering.js';

useTestFolder();

describe('an anchored head (expectedHead)', () => {
  it('catches signed receipts deleted from the anchored tail and replaced by correctly hashed unsigned rows', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 5);
    const anchored = journal.head();
    expect(await journal.verify({ expectedHead: anchored })).toMatchObject({ ok: true });
    tamper(journal.path, (db) => {
      db.prepare('DELETE FROM receipts WHERE seq >= 4').run();
      for (let pad = 0; pad < 3; pad += 1) appendForged(db, 'events', { at: Date.now(), type: 'note', body: JSON.stringify({ pad }) });
    });
    // The chain is longer than the anchor now; the row at the anchored position is another one.
    expect((await journal.verify({ expectedHead: anchored })).firstBadRow).toEqual({
      table: 'events',
      id: 5,
      problem: 'differs from the anchored head: the chain was rewritten at or before this row',
    });
  });

  it('catches an unsigned chain rewritten in the middle, re-hashed and extended by one row', async () => {
    const journal = journalAt();
    await settle(journal, 1, 4);
    const anchored = journal.head();
    tamper(journal.path, (db) => {
      forgeReceiptRelinked(db, 2);
      appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}' });
    });
    // Without the anchor a rewritten unsigned chain is indistinguishable from the real one…
    expect((await journal.verify()).ok).toBe(true);
    // …with it, the row at the anchored position no longer carries the anchored hash.
    expect((await journal.verify({ expectedHead: anchored })).firstBadRow).toEqual({
      table: 'receipts',
      id: 4,
      problem: 'differs from the anchored head: the chain was rewritten at or before this row',
    });
  });

  it('passes an untouched chain that grew past the anchor, and an anchor at genesis', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    const genesis = journal.head();
    await settle(journal, 1, 3);
    const anchored = journal.head();
    await settle(journal, 4, 6);
    await journal.append({ type: 'note', at: Date.now(), data: {} });
    expect(await journal.verify({ expectedHead: anchored })).toMatchObject({ ok: true, rows: 7 });
    expect(await journal.verify({ expectedHead: genesis })).toMatchObject({ ok: true });
    expect((await journal.verify({ expectedHead: { seq: 0, hash: 'f'.repeat(64) } })).ok).toBe(false);
    expect((await journal.verify({ expectedHead: { seq: 20, hash: anchored.hash } })).firstBadRow).toMatchObject({ table: 'chain', id: 20 });
  });

  it('accepts an anchored row that compaction removed when a signed checkpoint covers it', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 3);
    const inside = journal.head(); // seq 3: compacted away, strictly inside the dropped prefix
    await settle(journal, 4, 5);
    const atCheckpoint = journal.head(); // seq 5: exactly the checkpoint's through_seq
    expect((await journal.compact({ before: Date.now() + 1 })).throughSeq).toBe(5);
    await settle(journal, 6, 7);
    expect(await journal.verify({ expectedHead: inside })).toMatchObject({ ok: true });
    expect(await journal.verify({ expectedHead: atCheckpoint })).toMatchObject({ ok: true });
    // The checkpoint recorded the hash the row at its through_seq had: another anchor there fails.
    expect((await journal.verify({ expectedHead: { seq: 5, hash: inside.hash } })).firstBadRow).toEqual({
      table: 'chain',
      id: 5,
      problem: 'differs from the anchored head: compaction recorded another hash at this position',
    });
    // An auditor with only the public key reaches the same verdicts, once the writer signed the rows it sealed (at close).
    const publicKey = journal.publicKey!;
    closeJournal(journal);
    const auditor = journalAt({ publicKey }, journal.path);
    expect(await auditor.verify({ expectedHead: inside })).toMatchObject({ ok: true });
  });

  it('does not let an unsigned checkpoint vouch for an anchored row: a forged compaction is what a writer without the key would fake', async () => {
    const journal = journalAt();
    await settle(journal, 1, 4);
    const anchored = journal.head();
    tamper(journal.path, (db) => {
      // Throw the whole history away and fabricate a compaction "through seq 10" followed by new rows.
      for (const table of CHAINED_TABLES) db.prepare(`DELETE FROM ${table}`).run();
      const invented = 'a'.repeat(64);
      const row = appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}' }, { seq: 10, hash: invented });
      appendForged(db, 'checkpoints', { at: Date.now(), through_seq: 10, through_hash: invented, body: '{}', key_id: null }, row);
    });
    expect((await journal.verify()).ok).toBe(true);
    expect((await journal.verify({ expectedHead: anchored })).firstBadRow).toEqual({
      table: 'chain',
      id: 4,
      problem: 'the anchored row was removed by compaction and no signed checkpoint covers it; anchor a head taken after compact()',
    });
  });

  it('reports the same for an unsigned journal compacted legitimately past an old anchor, and passes a head taken after compact()', async () => {
    const journal = journalAt();
    await settle(journal, 1, 3);
    const old = journal.head();
    await settle(journal, 4, 5);
    await journal.compact({ before: Date.now() + 1 });
    expect((await journal.verify({ expectedHead: old })).firstBadRow?.problem).toMatch(/no signed checkpoint covers it/);
    const fresh = journal.head();
    await settle(journal, 6, 6);
    expect(await journal.verify({ expectedHead: fresh })).toMatchObject({ ok: true });
  });
});

describe('every chained row is signed', () => {
  it('signs claims and events as well as receipts and checkpoints', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    const prepared = await journal.prepare(effectCall('c1'));
    expect(prepared.status).toBe('claimed');
    if (prepared.status !== 'claimed') return;
    await journal.settle(prepared.claim, { ok: true, value: 1, content: 'ok', receipt: receipt(1) });
    // Each write its own commit, so each row ends one: the last row of a commit carries the signature.
    journal.flush();
    await journal.append({ type: 'note', at: Date.now(), data: {} });
    const signedIn = (table: ChainedTable): boolean[] => {
      const db = new Database(journal.path, { readonly: true });
      try {
        return db.prepare<[], { key_id: string | null; signature: string | null }>(`SELECT key_id, signature FROM ${table}`).all().map((row) => row.key_id !== null && row.signature !== null);
      } finally {
        db.close();
      }
    };
    for (const table of ['events', 'claims', 'receipts'] as const) expect(signedIn(table), table).toEqual([true]);
    expect(await journal.verify()).toMatchObject({ ok: true, rows: 3 });
    await journal.compact({ before: Date.now() + 1 });
    expect(signedIn('checkpoints')).toEqual([true]);
    expect(await journal.verify()).toMatchObject({ ok: true });
  });

  it('catches a forged "released" row appended to an unresolved claim, which would let a crashed effect run twice', async () => {
    const crashed = journalAt({ sign: { keyDir: keyDir() } });
    const prepared = await crashed.prepare(effectCall('c1'));
    expect(prepared.status).toBe('claimed');
    crashed.close(); // the process dies between claim and settle
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    const [claim] = await journal.unresolved();
    expect(claim).toBeDefined();
    tamper(journal.path, (db) => {
      appendForged(db, 'claims', { at: Date.now(), claim_id: claim!.claimId, key: claim!.key, state: 'released', body: JSON.stringify({ by: 'operator' }) });
    });
    // A running signed journal never reads the forged row past its signed head: the claim stays unresolved…
    expect((await journal.unresolved()).map((open) => open.claimId)).toEqual([claim!.claimId]);
    // …and verify() names it: a writer without the key cannot sign it.
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'claims', id: 2, problem: 'signature missing' });
  });

  it('catches a forged event appended after receipts only, and a signature stripped from an event', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 2);
    tamper(journal.path, (db) => appendForged(db, 'events', { at: Date.now(), type: 'call-refused', body: '{}' }));
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'events', id: 3, problem: 'signature missing: the row is unsigned and no later signed row covers it' });

    const other = journalAt({ sign: { keyDir: keyDir() } }, journalPath('other.db'));
    await other.append({ type: 'note', at: Date.now(), data: {} });
    await settle(other, 1, 1);
    tamper(other.path, (db) => db.prepare('UPDATE events SET signature = NULL WHERE seq = 1').run());
    expect((await other.verify()).firstBadRow).toEqual({ table: 'events', id: 1, problem: 'signature missing' });
  });

  it('refuses to sign over the unsigned tail of a schema 1 journal (signed receipts, unsigned events and claims): a journal dressed as schema 1 reads the same', async () => {
    const path = journalPath('legacy.db');
    writeSchema1Journal(path, loadReceiptSigner(keyDir()));
    const journal = journalAt({ sign: { keyDir: keyDir() } }, path);
    expect(new Database(path, { readonly: true }).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    // Schema 1 left unsigned rows after its last signed receipt (an event and two claims): nothing signed covers them.
    await expect(journal.append({ type: 'note', at: Date.now(), data: {} })).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'events', id: 2, problem: 'signature missing: the row is unsigned and no later signed row covers it' });
    // It still reads, and verifies as the unsigned history it is.
    expect(await journal.verify({ requireSignatures: false })).toMatchObject({ ok: true, rows: 4 });
  });
});

describe('one signature per commit', () => {
  /** Four effect-tier calls made together, settled, then one more call: two batches of several rows. */
  async function batched(journal: SqliteJournal): Promise<void> {
    const prepared = await Promise.all(['c1', 'c2', 'c3', 'c4'].map((callId) => journal.prepare(effectCall(callId))));
    for (const [index, result] of prepared.entries()) {
      if (result.status !== 'claimed') throw new Error('not claimed');
      await journal.settle(result.claim, { ok: true, value: index, content: `ok ${index}`, receipt: receipt(index) });
    }
    await journal.prepare(effectCall('c5'));
  }

  function rows(path: string): { table: string; seq: number; key_id: string | null; signature: string | null }[] {
    const db = new Database(path, { readonly: true });
    try {
      return db
        .prepare<[], { table: string; seq: number; key_id: string | null; signature: string | null }>(
          `SELECT 'claims' AS "table", seq, key_id, signature FROM claims UNION ALL SELECT 'receipts', seq, key_id, signature FROM receipts ORDER BY seq`,
        )
        .all();
    } finally {
      db.close();
    }
  }

  it('signs the last row of each commit; the rows before it name no key, and verify() passes', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await batched(journal);
    const written = rows(journal.path);
    // Claims 1–4 in one commit; the four receipts (each settles its claim) and claim 5 in the next.
    expect(written.filter((row) => row.signature !== null).map((row) => row.seq)).toEqual([4, 9]);
    for (const row of written) expect(row.key_id === null, `row ${row.seq}`).toBe(row.signature === null);
    expect(await journal.verify()).toMatchObject({ ok: true, rows: 9 });
  });

  it('catches the tail cut inside a commit: the row left last names no key and nothing covers it', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await batched(journal);
    tamper(journal.path, (db) => db.prepare('DELETE FROM claims WHERE seq = 9').run());
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'receipts', id: 5, problem: 'signature missing' });
  });

  it('catches a row inside a commit changed and the chain re-linked: the covering signature no longer matches, and the row is named', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await batched(journal);
    tamper(journal.path, (db) => {
      let previous = db.prepare<[], string>('SELECT hash FROM claims WHERE seq = 4').pluck().get() ?? '';
      for (const seq of [5, 6, 7, 8, 9]) {
        const table = db.prepare('SELECT 1 FROM receipts WHERE seq = ?').get(seq) === undefined ? 'claims' : 'receipts';
        const row = db.prepare<[number], Record<string, unknown>>(`SELECT * FROM ${table} WHERE seq = ?`).get(seq) ?? {};
        if (seq === 5) row.body = String(row.body).replace('"ok 0"', '"FORGED"');
        const hash = hashRow(previous, table, seq, hashedFields(row));
        db.prepare(`UPDATE ${table} SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?`).run(row.body, previous, hash, seq);
        previous = hash;
      }
    });
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'receipts', id: 5, problem: 'signature missing' });
  });

  it('catches a row appended after the signed head without a key id, and the signature stripped from a commit’s last row', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await batched(journal);
    tamper(journal.path, (db) => appendForged(db, 'claims', { at: Date.now(), claim_id: 'x', key: 'act:c5', state: 'released', body: '{}', key_id: null }));
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'claims', id: 10, problem: 'signature missing' });

    const other = journalAt({ sign: { keyDir: keyDir() } }, journalPath('other.db'));
    await batched(other);
    tamper(other.path, (db) => db.prepare('UPDATE claims SET signature = NULL WHERE seq = 4').run());
    expect((await other.verify()).firstBadRow).toEqual({ table: 'claims', id: 4, problem: 'signature missing' });
  });
});
