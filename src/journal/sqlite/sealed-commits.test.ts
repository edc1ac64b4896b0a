/**
 * A signed journal seals most commits and Ed25519-signs one in every
 * `signEveryMs`, the last before writing stops and the last at close. A
 * seal vouches for a row to every holder of the key, as a signature does;
 * the public key checks none, so an auditor who holds it alone checks the
 * rows up to the last signature. A writer without the key makes neither.
 */
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isSeal, loadReceiptSigner, loadSealVerifier, readSigningKeyFile, SIGNING_KEY_FILE, verifierFromPem } from './receipt-signer.js';
import { hashedFields, hashRow } from './row-hash.js';
import { appendForged, closeJournal, effectCall, fileHeadOf, journalAt, journalPath, keyDir, settle, tamper, useTestFolder } from './__fixtures__/tampering.js';
import { receipt } from './__fixtures__/receipt.js';

useTestFolder();

/** Every commit after the first sealed, for as long as a test runs. */
const sealing = () => ({ sign: { keyDir: keyDir(), signEveryMs: 60_000 } });

interface StoredRow {
  readonly table: string;
  readonly seq: number;
  readonly hash: string;
  readonly type: string | null;
  readonly signature: string | null;
}

function rowsOf(path: string): StoredRow[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare<[], StoredRow>(
        `SELECT 'events' AS "table", seq, hash, type, signature FROM events UNION ALL SELECT 'receipts', seq, hash, NULL, signature FROM receipts
         UNION ALL SELECT 'claims', seq, hash, NULL, signature FROM claims ORDER BY seq`,
      )
      .all();
  } finally {
    db.close();
  }
}

const sealed = (row: StoredRow | undefined): boolean => row?.signature !== null && row?.signature !== undefined && isSeal(row.signature);
const lastRow = (path: string): StoredRow | undefined => rowsOf(path).at(-1);
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the seal', () => {
  it('is made and checked only under the private key, and is never taken for a signature', () => {
    const signer = loadReceiptSigner(keyDir());
    const stranger = loadReceiptSigner(journalPath('stranger-keys'));
    const hash = 'ab'.repeat(32);
    const seal = signer.seal(hash);
    expect(isSeal(seal)).toBe(true);
    expect(isSeal(signer.sign(hash))).toBe(false);
    expect(signer.seal(hash)).toBe(seal);
    expect(signer.verifySeal(hash, seal)).toBe(true);
    // Another hash, another key's seal, an edited seal, the same seal in capitals, a signature given as a seal.
    expect(signer.verifySeal('cd'.repeat(32), seal)).toBe(false);
    expect(signer.verifySeal(hash, stranger.seal(hash))).toBe(false);
    expect(signer.verifySeal(hash, `${seal.slice(0, -1)}${seal.endsWith('0') ? '1' : '0'}`)).toBe(false);
    expect(signer.verifySeal(hash, seal.toUpperCase())).toBe(false);
    expect(signer.verifySeal(hash, signer.sign(hash))).toBe(false);
    // The Ed25519 check never passes a seal.
    expect(signer.verify(hash, seal)).toBe(false);
    // The public key checks no seal; a verifier from the key already there does, and makes no key.
    expect('verifySeal' in verifierFromPem(signer.publicKeyPem)).toBe(false);
    expect(loadSealVerifier(keyDir()).verifySeal?.(hash, seal)).toBe(true);
    expect(() => loadSealVerifier(journalPath('no-keys'))).toThrow();
  });
});

describe('a signed journal seals its commits and signs them over', () => {
  it('signs the first commit and seals the next ones; a holder of the key verifies them all, the public key up to the last signature', async () => {
    const journal = journalAt(sealing());
    await settle(journal, 1, 3);
    const rows = rowsOf(journal.path);
    expect(rows.map((row) => sealed(row))).toEqual([false, true, true]);
    expect(await journal.verify()).toMatchObject({ ok: true, rows: 3 });
    expect(await journalAt({ verifyKeyDir: keyDir() }, journal.path).verify()).toMatchObject({ ok: true, rows: 3 });
    const auditor = journalAt({ publicKey: journal.publicKey! }, journal.path);
    expect((await auditor.verify()).firstBadRow).toEqual({ table: 'receipts', id: 2, problem: expect.stringContaining('carries a seal, which only the signing key checks, not the public key') });
  });

  it('is checked, seals included, with the key text a caller read once (verifyKey), and under another key fails', async () => {
    const journal = journalAt(sealing());
    await settle(journal, 1, 3);
    const pem = readSigningKeyFile(join(keyDir(), SIGNING_KEY_FILE));
    expect(await journalAt({ verifyKey: pem }, journal.path).verify()).toMatchObject({ ok: true, rows: 3 });
    const stranger = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect((await journalAt({ verifyKey: stranger }, journal.path).verify()).firstBadRow).toMatchObject({ id: 1, problem: expect.stringContaining('unknown key') });
    expect(() => journalAt({ verifyKey: 'not a key' }, journal.path)).toThrow();
  });

  it('signs the sealed rows over at close, with one signed event, and the public key then verifies every row', async () => {
    const journal = journalAt(sealing());
    await settle(journal, 1, 3);
    const publicKey = journal.publicKey!;
    closeJournal(journal);
    const last = lastRow(journal.path);
    expect(last).toMatchObject({ table: 'events', seq: 4, type: 'journal-signed' });
    expect(sealed(last)).toBe(false);
    expect(verifierFromPem(publicKey).verify(last!.hash, last!.signature!)).toBe(true);
    expect(await journalAt({ publicKey }, journal.path).verify()).toMatchObject({ ok: true, rows: 4 });
  });

  it('adds no row at close when the last commit was signed, and none with signEveryMs 0, which signs every commit', async () => {
    const every = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 0 } }, journalPath('every.db'));
    await settle(every, 1, 3);
    closeJournal(every);
    expect(rowsOf(every.path).map((row) => [row.table, sealed(row)])).toEqual([
      ['receipts', false],
      ['receipts', false],
      ['receipts', false],
    ]);
    const once = journalAt(sealing(), journalPath('once.db'));
    await settle(once, 1, 1);
    closeJournal(once);
    expect(rowsOf(once.path)).toHaveLength(1);
  });

  it('signs the commit of a burst’s last receipt, which commits on its own once calls stop coming', async () => {
    const journal = journalAt(sealing());
    for (const id of ['c1', 'c2']) {
      const prepared = await journal.prepare(effectCall(id));
      if (prepared.status !== 'claimed') throw new Error('not claimed');
      await journal.settle(prepared.claim, { ok: true, value: 1, content: 'ok', receipt: { ...receipt(1), callId: id, actionDigest: 'act' } });
    }
    // The second claim's commit carried the first receipt, sealed; the second receipt commits alone, signed.
    await pause(50);
    const rows = rowsOf(journal.path);
    expect(rows.map((row) => [row.table, sealed(row)])).toEqual([
      ['claims', false],
      ['receipts', false],
      ['claims', true],
      ['receipts', false],
    ]);
  });

  it('signs a sealed head over once writing stops, while the journal stays open', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir(), signEveryMs: 40 } });
    await settle(journal, 1, 1);
    await journal.append({ type: 'note', at: Date.now(), data: {} });
    expect(sealed(lastRow(journal.path))).toBe(true);
    await pause(200);
    const last = lastRow(journal.path);
    expect(last).toMatchObject({ type: 'journal-signed', seq: 3 });
    expect(sealed(last)).toBe(false);
    expect(await journalAt({ publicKey: journal.publicKey! }, journal.path).verify()).toMatchObject({ ok: true, rows: 3 });
    // Once: the signed head is not signed over again.
    await pause(100);
    expect(rowsOf(journal.path)).toHaveLength(3);
  });

  it('another holder of the key takes a sealed head: it looks a receipt up behind it, and links onto it', async () => {
    const writer = journalAt(sealing());
    await settle(writer, 1, 2);
    expect(sealed(lastRow(writer.path))).toBe(true);
    const reader = journalAt({ sign: { keyDir: keyDir() } }, writer.path);
    expect(await reader.lookup('act2:c2')).toMatchObject({ ok: true, value: 2 });
    await settle(writer, 3, 3);
    expect(await reader.lookup('act3:c3')).toMatchObject({ ok: true, value: 3 });
    await settle(reader, 4, 4);
    expect(await writer.lookup('act4:c4')).toMatchObject({ ok: true, value: 4 });
    expect(await writer.verify()).toMatchObject({ ok: true, rows: 4 });
  });

  it('a writer that stops without closing leaves its sealed rows to the next commit signed', async () => {
    const path = journalPath('crashed.db');
    const crashed = journalAt(sealing(), path);
    await settle(crashed, 1, 2);
    const publicKey = crashed.publicKey!;
    // What a process killed before close leaves: the file as the last commit left it (the journal is not closed).
    const copy = journalPath('copy.db');
    const source = new Database(path, { readonly: true });
    await source.backup(copy);
    source.close();
    expect(sealed(lastRow(copy))).toBe(true);
    expect((await journalAt({ publicKey }, copy).verify()).ok).toBe(false);
    const next = journalAt({ sign: { keyDir: keyDir() } }, copy);
    expect(await next.lookup('act2:c2')).toMatchObject({ value: 2 });
    await settle(next, 3, 3);
    expect(sealed(lastRow(copy))).toBe(false);
    expect(await journalAt({ publicKey }, copy).verify()).toMatchObject({ ok: true, rows: 3 });
  });
});

describe('attack: a writer without the key at a sealed head', () => {
  const refused = { code: 'CONFIGURATION_INVALID', message: expect.stringContaining("is not signed with the journal's key") };

  it('a forged row given a made-up seal is refused, and verify() names it', async () => {
    const journal = journalAt(sealing());
    await settle(journal, 1, 2);
    let forged = 0;
    tamper(journal.path, (db) => {
      const head = appendForged(db, 'claims', { at: Date.now(), claim_id: 'x', key: 'act:c9', state: 'released', body: '{}', key_id: loadReceiptSigner(keyDir()).keyId });
      db.prepare('UPDATE claims SET signature = ? WHERE seq = ?').run(`hmac-sha256:${'0'.repeat(64)}`, head.seq);
      forged = head.seq;
    });
    await expect(journal.prepare(effectCall('c9'))).rejects.toMatchObject(refused);
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'claims', id: forged, problem: 'seal mismatch' });
  });

  it('a forged row given the seal of the row before it, or of another key, is refused', async () => {
    const journal = journalAt(sealing());
    await settle(journal, 1, 2);
    const stranger = loadReceiptSigner(journalPath('stranger-keys'));
    const keyId = loadReceiptSigner(keyDir()).keyId;
    const copied = lastRow(journal.path)!.signature!;
    tamper(journal.path, (db) => {
      const head = appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{"forged":1}', key_id: keyId });
      db.prepare('UPDATE events SET signature = ? WHERE seq = ?').run(copied, head.seq);
    });
    await expect(journal.append({ type: 'note', at: Date.now(), data: {} })).rejects.toMatchObject(refused);
    const other = journalAt(sealing(), journalPath('other.db'));
    await settle(other, 1, 2);
    tamper(other.path, (db) => {
      const head = appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{"forged":2}', key_id: keyId });
      db.prepare('UPDATE events SET signature = ? WHERE seq = ?').run(stranger.seal(head.hash), head.seq);
    });
    await expect(other.append({ type: 'note', at: Date.now(), data: {} })).rejects.toMatchObject(refused);
  });

  it('a sealed receipt edited in place with its hash recomputed is refused at the head, and behind it by the walk', async () => {
    const journal = journalAt(sealing());
    await settle(journal, 1, 2);
    const reader = journalAt({ sign: { keyDir: keyDir() } }, journal.path);
    expect(await reader.lookup('act2:c2')).toMatchObject({ value: 2 });
    tamper(journal.path, (db) => {
      const row = db.prepare<[], { seq: number; prev_hash: string; body: string } & Record<string, string | number | null>>('SELECT * FROM receipts WHERE seq = 2').get()!;
      const body = row.body.replace('"ok 2"', '"FORGED"');
      const hash = hashRow(row.prev_hash, 'receipts', 2, { ...hashedFields(row), body });
      db.prepare('UPDATE receipts SET body = ?, hash = ? WHERE seq = 2').run(body, hash);
    });
    // The seal is over the hash it had: the head no longer carries the key's seal.
    await expect(journalAt({ sign: { keyDir: keyDir() } }, journal.path).lookup('act2:c2')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    await expect(reader.lookup('act2:c2')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    expect((await journal.verify()).firstBadRow).toMatchObject({ table: 'receipts', id: 2 });
    expect(fileHeadOf(journal.path).seq).toBe(2);
  });
});
