/**
 * An attacker with write access to the journal file but not the signing key:
 * each test tampers the way such a writer can (raw SQL, hashes recomputed,
 * triggers dropped and put back) and expects `verify()` to name the damage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JournalPrepareInput } from '../../core/internal.js';
import type { ChainHead } from './chain-store.js';
import { createSqliteJournal, type SqliteJournalOptions } from './create-sqlite-journal.js';
import { loadReceiptSigner } from './receipt-signer.js';
import { GENESIS_HASH, hashedFields, hashRow } from './row-hash.js';
import { appendOnlyTriggerSql, CHAINED_TABLES, SCHEMA_VERSION, type ChainedTable } from './schema.js';
import type { SqliteJournal } from './sqlite-journal.js';
import { receipt } from './__fixtures__/receipt.js';

let dir: string;
const open: SqliteJournal[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-adversarial-'));
});
afterEach(() => {
  for (const journal of open.splice(0)) journal.close();
  rmSync(dir, { recursive: true, force: true });
});

const keyDir = () => join(dir, 'keys');

function journalAt(options: SqliteJournalOptions = {}, path = join(dir, 'journal.db')): SqliteJournal {
  const journal = createSqliteJournal(path, { onUnresolved: () => undefined, ...options });
  open.push(journal);
  return journal;
}

async function settle(journal: SqliteJournal, from: number, to: number): Promise<void> {
  for (let index = from; index <= to; index += 1) await journal.settle(undefined, { ok: true, value: index, content: `ok ${index}`, receipt: receipt(index) });
}

function effectCall(callId: string): JournalPrepareInput {
  return { key: `act:${callId}`, callId, runId: 'run-1', toolName: 'bump', toolVersion: undefined, agent: undefined, actionDigest: 'act', inputDigest: 'in', arguments: {}, tier: 'effect', startedAt: 1 };
}

/** The attacker's session: drop every guard trigger, tamper, put the journal's own triggers back. */
function tamper(path: string, work: (db: Database.Database) => void): void {
  const db = new Database(path);
  try {
    for (const table of CHAINED_TABLES) db.exec(`DROP TRIGGER IF EXISTS ${table}_no_update; DROP TRIGGER IF EXISTS ${table}_no_delete;`);
    work(db);
    for (const table of CHAINED_TABLES) for (const statement of appendOnlyTriggerSql(table)) db.exec(statement);
  } finally {
    db.close();
  }
}

function headOf(db: Database.Database): ChainHead {
  let head: ChainHead = { seq: 0, hash: GENESIS_HASH };
  for (const table of CHAINED_TABLES) {
    const row = db.prepare<[], ChainHead>(`SELECT seq, hash FROM ${table} ORDER BY seq DESC LIMIT 1`).get();
    if (row !== undefined && row.seq > head.seq) head = row;
  }
  return head;
}

/** Append an unsigned row, correctly linked and hashed: all a writer without the key can make. */
function appendForged(db: Database.Database, table: ChainedTable, fields: Record<string, string | number | null>, after: ChainHead = headOf(db)): ChainHead {
  const seq = after.seq + 1;
  const hash = hashRow(after.hash, table, seq, fields);
  const row = { ...fields, seq, prev_hash: after.hash, hash };
  db.prepare(`INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row).map((column) => `@${column}`).join(', ')})`).run(row);
  return { seq, hash };
}

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
      let previous = GENESIS_HASH;
      for (const row of db.prepare<[], Record<string, unknown> & { seq: number }>('SELECT * FROM receipts ORDER BY seq').all()) {
        if (row.seq === 2) row.body = String(row.body).replace('"ok 2"', '"FORGED"');
        const hash = hashRow(previous, 'receipts', row.seq, hashedFields(row));
        db.prepare('UPDATE receipts SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(row.body, previous, hash, row.seq);
        previous = hash;
      }
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
    // An auditor with only the public key reaches the same verdicts.
    const auditor = journalAt({ publicKey: journal.publicKey! }, journal.path);
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
    for (const table of ['events', 'claims', 'receipts'] as const) expect(signedIn(table), table).toEqual(table === 'claims' ? [true, true] : [true]);
    expect(await journal.verify()).toMatchObject({ ok: true, rows: 4 });
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
    // The forged row frees the key (the next dispatch would run the body again)…
    expect(await journal.unresolved()).toEqual([]);
    // …and verify() names it: a writer without the key cannot sign it.
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'claims', id: 2, problem: 'signature missing' });
  });

  it('catches a forged event appended after receipts only, and a signature stripped from an event', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 2);
    tamper(journal.path, (db) => appendForged(db, 'events', { at: Date.now(), type: 'call-refused', body: '{}' }));
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'events', id: 3, problem: 'signature missing: the row is unsigned and no later signed row covers it' });

    const other = journalAt({ sign: { keyDir: keyDir() } }, join(dir, 'other.db'));
    await other.append({ type: 'note', at: Date.now(), data: {} });
    await settle(other, 1, 1);
    tamper(other.path, (db) => db.prepare('UPDATE events SET signature = NULL WHERE seq = 1').run());
    expect((await other.verify()).firstBadRow).toEqual({ table: 'events', id: 1, problem: 'signature missing' });
  });

  it('still verifies a schema 1 journal (signed receipts, unsigned events and claims) once a later signature covers its unsigned rows', async () => {
    const path = join(dir, 'legacy.db');
    const signer = loadReceiptSigner(keyDir());
    writeSchema1Journal(path, signer);
    const journal = journalAt({ sign: { keyDir: keyDir() } }, path);
    expect(new Database(path, { readonly: true }).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    // Schema 1 left unsigned rows after its last signed receipt: nothing signed covers them yet.
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'events', id: 2, problem: 'signature missing: the row is unsigned and no later signed row covers it' });
    expect(await journal.verify({ requireSignatures: false })).toMatchObject({ ok: true, rows: 4 });
    // The first write of this version signs a row whose hash covers every row before it.
    await journal.append({ type: 'upgraded', at: Date.now(), data: {} });
    expect(await journal.verify()).toMatchObject({ ok: true, rows: 5 });
    // Past the first signed event or claim, an unsigned one is a forgery, not a legacy row.
    tamper(path, (db) => appendForged(db, 'claims', { at: Date.now(), claim_id: 'x', key: 'k', state: 'released', body: '{}' }));
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'claims', id: 6, problem: 'signature missing' });
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
    // Claims 1–4 in one commit; the four settles (receipt and settled row each) and claim 5 in the next.
    expect(written.filter((row) => row.signature !== null).map((row) => row.seq)).toEqual([4, 13]);
    for (const row of written) expect(row.key_id === null, `row ${row.seq}`).toBe(row.signature === null);
    expect(await journal.verify()).toMatchObject({ ok: true, rows: 13 });
  });

  it('catches the tail cut inside a commit: the row left last names no key and nothing covers it', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await batched(journal);
    tamper(journal.path, (db) => db.prepare('DELETE FROM claims WHERE seq = 13').run());
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'receipts', id: 5, problem: 'signature missing' });
  });

  it('catches a row inside a commit changed and the chain re-linked: the covering signature no longer matches, and the row is named', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await batched(journal);
    tamper(journal.path, (db) => {
      let previous = db.prepare<[], string>('SELECT hash FROM claims WHERE seq = 4').pluck().get() ?? '';
      for (const seq of [5, 6, 7, 8, 9, 10, 11, 12, 13]) {
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
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'claims', id: 14, problem: 'signature missing' });

    const other = journalAt({ sign: { keyDir: keyDir() } }, join(dir, 'other.db'));
    await batched(other);
    tamper(other.path, (db) => db.prepare('UPDATE claims SET signature = NULL WHERE seq = 4').run());
    expect((await other.verify()).firstBadRow).toEqual({ table: 'claims', id: 4, problem: 'signature missing' });
  });
});

describe('compaction', () => {
  it('refuses to drop a prefix that does not verify (its signed checkpoint would vouch for it)', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 4);
    tamper(journal.path, (db) => {
      // Edit receipt 2 and re-link every later row: the signatures no longer match.
      let previous = GENESIS_HASH;
      for (const row of db.prepare<[], Record<string, unknown> & { seq: number }>('SELECT * FROM receipts ORDER BY seq').all()) {
        if (row.seq === 2) row.body = String(row.body).replace('"ok 2"', '"FORGED"');
        const hash = hashRow(previous, 'receipts', row.seq, hashedFields(row));
        db.prepare('UPDATE receipts SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(row.body, previous, hash, row.seq);
        previous = hash;
      }
    });
    await expect(journal.compact({ before: Date.now() + 1 })).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID', message: expect.stringMatching(/receipts #2: signature mismatch/) });
    expect(new Database(journal.path, { readonly: true }).prepare('SELECT count(*) FROM receipts').pluck().get()).toBe(4);
  });

  it('checks an anchored head before it drops the rows that carry it', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 5);
    const anchored = journal.head();
    // A writer without the key truncates the signed tail; the honest writer then appends over it.
    tamper(journal.path, (db) => db.prepare('DELETE FROM receipts WHERE seq >= 4').run());
    const honest = journalAt({ sign: { keyDir: keyDir() } }, journal.path);
    await settle(honest, 6, 8);
    expect((await journal.verify({ expectedHead: anchored })).firstBadRow).toMatchObject({ table: 'receipts', id: 5 });
    await expect(journal.compact({ before: Date.now() + 1, expectedHead: anchored })).rejects.toMatchObject({ message: expect.stringMatching(/receipts #5: differs from the anchored head/) });
    expect(journal.head().seq).toBe(6);
  });
});

describe('values the journal never writes', () => {
  it('catches a BLOB put where the journal wrote NULL, which a NULL-reading hash would not see', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    await settle(journal, 1, 3);
    expect((await journal.verify()).ok).toBe(true);
    tamper(journal.path, (db) => {
      db.prepare("UPDATE receipts SET run_id = CAST('run-attacker' AS BLOB), action_digest = CAST('forged' AS BLOB) WHERE seq = 2").run();
    });
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'receipts', id: 2, problem: 'a column holds a value the journal never writes: the row was changed' });
  });

  it('verifies its own rows whose text holds a lone surrogate, which SQLite stores as U+FFFD', async () => {
    const journal = journalAt({ sign: { keyDir: keyDir() } });
    const call = effectCall('c\udc00');
    expect((await journal.prepare({ ...call, key: 'act:\ud800x', runId: 'run-\ud800', toolName: 'bump\ud800' })).status).toBe('claimed');
    journal.flush();
    expect(await journal.verify()).toMatchObject({ ok: true, rows: 1 });
  });

  it('finds a claim whose key held a lone surrogate after a restart: the retry is refused, not run again', async () => {
    const path = join(dir, 'restart.db');
    const call = { ...effectCall('c\udc00'), key: 'act:c\udc00' };
    const first = journalAt({}, path);
    expect((await first.prepare(call)).status).toBe('claimed');
    first.close();
    expect((await journalAt({}, path).prepare(call)).status).toBe('refused');
  });
});

describe('the append-only triggers', () => {
  it('catches same-named triggers that guard another table, after which a plain DELETE works', async () => {
    const journal = journalAt();
    await settle(journal, 1, 3);
    const db = new Database(journal.path);
    for (const table of CHAINED_TABLES) {
      for (const operation of ['update', 'delete']) {
        db.exec(`DROP TRIGGER ${table}_no_${operation}; CREATE TRIGGER ${table}_no_${operation} BEFORE ${operation.toUpperCase()} ON meta BEGIN SELECT 1; END`);
      }
    }
    expect(db.prepare('DELETE FROM receipts WHERE seq = 3').run().changes).toBe(1);
    db.close();
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'append-only trigger events_no_update is on table meta, not events' });
  });

  it('catches a same-named trigger on the right table that does nothing', async () => {
    const journal = journalAt();
    await settle(journal, 1, 2);
    const db = new Database(journal.path);
    db.exec(`DROP TRIGGER receipts_no_delete; CREATE TRIGGER receipts_no_delete BEFORE DELETE ON receipts WHEN 0 BEGIN SELECT RAISE(ABORT, 'toolgate journal: receipts rows are append-only'); END`);
    db.close();
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'append-only trigger receipts_no_delete differs from the one the journal creates' });
  });

  it('catches a trigger the journal does not create on a chained table (one that silently drops claims)', async () => {
    const journal = journalAt();
    await settle(journal, 1, 1);
    const db = new Database(journal.path);
    db.exec(`CREATE TRIGGER drop_claims BEFORE INSERT ON claims BEGIN SELECT RAISE(IGNORE); END`);
    db.close();
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'unexpected trigger drop_claims on claims' });
  });

  it('accepts the journal’s own triggers however they were spelled when restored', async () => {
    const journal = journalAt();
    await settle(journal, 1, 1);
    const db = new Database(journal.path);
    db.exec(`DROP TRIGGER claims_no_update; create   trigger claims_no_update before update on CLAIMS
      begin select raise ( abort , 'toolgate journal: claims rows are append-only' ) ;  end;`);
    db.close();
    expect(await journal.verify()).toMatchObject({ ok: true });
  });
});

/**
 * A journal as toolgate wrote it at schema 1: the tables of the first
 * migration (no key_id or signature on events and claims), receipts signed,
 * events and claims not. Rows: receipt, event, claim (claimed), claim (settled).
 */
function writeSchema1Journal(path: string, signer: ReturnType<typeof loadReceiptSigner>): void {
  const db = new Database(path);
  const chain = 'prev_hash TEXT NOT NULL, hash TEXT NOT NULL';
  db.exec(`CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE events (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, ${chain});
    CREATE TABLE claims (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, claim_id TEXT NOT NULL, key TEXT NOT NULL,
       state TEXT NOT NULL CHECK (state IN ('claimed', 'settled', 'discarded', 'released')), body TEXT NOT NULL, ${chain});
    CREATE INDEX claims_by_key ON claims (key, seq);
    CREATE TABLE receipts (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, key TEXT NOT NULL, claim_id TEXT, run_id TEXT, tool TEXT NOT NULL,
       action_digest TEXT, body TEXT NOT NULL, key_id TEXT, signature TEXT, ${chain});
    CREATE INDEX receipts_by_key ON receipts (key, seq);
    CREATE INDEX receipts_by_run ON receipts (run_id, seq);
    CREATE TABLE checkpoints (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, through_seq INTEGER NOT NULL, through_hash TEXT NOT NULL,
       body TEXT NOT NULL, key_id TEXT, signature TEXT, ${chain});`);
  const at = 1_700_000_000_000;
  const fields = { at, key: 'act1:c1', claim_id: null, run_id: null, tool: 'write_note', action_digest: 'act1', body: '{"ok":true}', key_id: signer.keyId };
  const first = appendForged(db, 'receipts', fields);
  db.prepare('UPDATE receipts SET signature = ? WHERE seq = ?').run(signer.sign(first.hash), first.seq);
  appendForged(db, 'events', { at, type: 'note', body: '{}' });
  appendForged(db, 'claims', { at, claim_id: 'claim-2', key: 'act2:c2', state: 'claimed', body: '{"tool":"bump","callId":"c2","startedAt":1}' });
  appendForged(db, 'claims', { at, claim_id: 'claim-2', key: 'act2:c2', state: 'settled', body: '{}' });
  for (const table of CHAINED_TABLES) for (const statement of appendOnlyTriggerSql(table)) db.exec(statement);
  db.pragma('user_version = 1');
  db.close();
}
