import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteJournal, type SqliteJournalOptions } from './create-sqlite-journal.js';
import { hashedFields, hashRow, legacyRowHash } from './row-hash.js';
import { appendOnlyTriggerSql, type ChainedTable } from './schema.js';
import type { SqliteJournal } from './sqlite-journal.js';
import { receipt } from './__fixtures__/receipt.js';

let dir: string;
const open: SqliteJournal[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-verify-'));
});
afterEach(() => {
  for (const journal of open.splice(0)) journal.close();
  rmSync(dir, { recursive: true, force: true });
});

function journalAt(options: SqliteJournalOptions = {}, path = join(dir, '.toolgate', 'journal.db')): SqliteJournal {
  const journal = createSqliteJournal(path, { onUnresolved: () => undefined, ...options });
  open.push(journal);
  return journal;
}

async function fill(journal: SqliteJournal, count: number): Promise<void> {
  for (let index = 1; index <= count; index += 1) {
    await journal.settle(undefined, { ok: true, value: { index }, content: `ok ${index}`, receipt: receipt(index) });
    if (index % 3 === 0) await journal.append({ type: 'note', at: Date.now(), data: { index } });
  }
}

function sqlite3(path: string, sql: string): void {
  execFileSync('/usr/bin/sqlite3', [path, sql], { stdio: 'pipe' });
}

/** Drop a guard trigger, tamper, and put the trigger back, all with the sqlite3 CLI. */
function withoutTrigger(path: string, trigger: string, sql: string): void {
  const table = trigger.replace(/_no_(update|delete)$/, '');
  const restore = appendOnlyTriggerSql(table as ChainedTable).find((statement) => statement.includes(` ${trigger} `));
  sqlite3(path, `DROP TRIGGER ${trigger}; ${sql}; ${restore ?? ''};`);
}

describe('tampering', () => {
  it('names a receipt changed with the sqlite3 CLI, after the attacker drops the append-only trigger', async () => {
    const journal = journalAt();
    await fill(journal, 12);
    expect(await journal.verify()).toMatchObject({ ok: true, rows: 16 });
    // The trigger stops a naive edit…
    expect(() => sqlite3(journal.path, `UPDATE receipts SET body = replace(body, 'ok 5', 'ok 6') WHERE seq = 6`)).toThrow(/append-only/);
    // …so the attacker drops it first.
    sqlite3(journal.path, `DROP TRIGGER receipts_no_update; UPDATE receipts SET body = replace(body, 'ok 5', 'ok 6') WHERE seq = 6;`);
    const result = await journal.verify();
    expect(result.ok).toBe(false);
    expect(result.firstBadRow).toEqual({ table: 'receipts', id: 6, problem: 'hash mismatch: the row was changed' });
  });

  it('names the row after a receipt deleted with the sqlite3 CLI', async () => {
    const journal = journalAt();
    await fill(journal, 12);
    // An attacker who also restores the trigger afterwards.
    withoutTrigger(journal.path, 'receipts_no_delete', `DELETE FROM receipts WHERE seq = 9`);
    const result = await journal.verify();
    expect(result.firstBadRow).toEqual({ table: 'receipts', id: 10, problem: 'rows 9–9 are missing (deleted)' });
  });

  it('verifies rows hashed as they were before the body followed the canonical part, among rows written now, and names one changed', async () => {
    const journal = journalAt();
    await fill(journal, 4);
    const path = journal.path;
    journal.close();
    relinkAfterEdit(path, 1, (body) => body, false, legacyRowHash);
    const db = new Database(path);
    const first = db.prepare<[], Record<string, unknown> & { prev_hash: string; hash: string }>('SELECT * FROM receipts WHERE seq = 1').get();
    db.close();
    expect(first?.hash).toBe(legacyRowHash(String(first?.prev_hash), 'receipts', 1, hashedFields(first ?? {})));
    expect(first?.hash).not.toBe(hashRow(String(first?.prev_hash), 'receipts', 1, hashedFields(first ?? {})));
    const reopened = journalAt({}, path);
    await fill(reopened, 2);
    expect(await reopened.verify()).toMatchObject({ ok: true, rows: 7 });
    reopened.close();
    withoutTrigger(path, 'receipts_no_update', `UPDATE receipts SET body = replace(body, 'ok 2', 'ok 7') WHERE seq = 2`);
    expect((await journalAt({}, path).verify()).firstBadRow).toMatchObject({ table: 'receipts', id: 2, problem: expect.stringContaining('hash mismatch') });
  });

  it('reports a missing append-only trigger even when every row is intact', async () => {
    const journal = journalAt();
    await fill(journal, 2);
    sqlite3(journal.path, `DROP TRIGGER claims_no_delete;`);
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'schema', id: 0, problem: 'append-only trigger claims_no_delete is missing' });
  });

  it('detects a deleted first row and a truncated tail against an anchored head', async () => {
    const journal = journalAt();
    await fill(journal, 5);
    const anchored = journal.head();
    expect(anchored.seq).toBe(6);
    withoutTrigger(journal.path, 'receipts_no_delete', `DELETE FROM receipts WHERE seq = ${anchored.seq}`);
    // A truncated tail is invisible to the chain alone…
    expect((await journal.verify()).ok).toBe(true);
    // …and caught against a head anchored outside the file.
    expect((await journal.verify({ expectedHead: anchored })).firstBadRow?.table).toBe('chain');
    withoutTrigger(journal.path, 'receipts_no_delete', `DELETE FROM receipts WHERE seq = 1`);
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'receipts', id: 2, problem: 'rows 1–1 are missing and no checkpoint covers them' });
  });
});

describe('signing', () => {
  it('creates an Ed25519 key on first use under .toolgate/keys with mode 0600 and signs every receipt', async () => {
    const journal = journalAt({ sign: true });
    await fill(journal, 3);
    const keyFile = join(dir, '.toolgate', 'keys', 'journal-ed25519.pem');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, '.toolgate', 'keys')).mode & 0o777).toBe(0o700);
    expect(journal.publicKey).toMatch(/BEGIN PUBLIC KEY/);
    const signatures = new Database(journal.path, { readonly: true }).prepare('SELECT signature FROM receipts').pluck().all();
    expect(signatures.every((value) => typeof value === 'string' && value.length > 0)).toBe(true);
    expect(await journal.verify()).toMatchObject({ ok: true });
    // An auditor with only the public key verifies too, once the writer signed the rows it sealed (at close).
    const publicKey = journal.publicKey!;
    journal.close();
    const auditor = journalAt({ publicKey }, journal.path);
    expect(await auditor.verify()).toMatchObject({ ok: true });
  });

  it('catches an attacker who edits a receipt and re-links the whole chain: the signature no longer matches', async () => {
    const journal = journalAt({ sign: { signEveryMs: 0 } });
    await fill(journal, 6);
    relinkAfterEdit(journal.path, 3, (body) => body.replace('ok 3', 'ok 9'));
    const result = await journal.verify();
    expect(result.firstBadRow).toEqual({ table: 'receipts', id: 3, problem: 'signature mismatch' });
  });

  it('catches the same edit of a sealed receipt: the seal no longer matches', async () => {
    // Every commit after the first sealed, for as long as the test runs.
    const journal = journalAt({ sign: { signEveryMs: 60_000 } });
    await fill(journal, 6);
    relinkAfterEdit(journal.path, 3, (body) => body.replace('ok 3', 'ok 9'));
    const result = await journal.verify();
    expect(result.firstBadRow).toEqual({ table: 'receipts', id: 3, problem: 'seal mismatch' });
  });

  it('catches an attacker who strips the signatures and re-links the chain', async () => {
    const journal = journalAt({ sign: true });
    await fill(journal, 3);
    relinkAfterEdit(journal.path, 1, (body) => body, true);
    expect((await journal.verify()).firstBadRow).toEqual({ table: 'receipts', id: 1, problem: 'signature missing' });
  });

  it('refuses a signing key readable by others, and a key that is a symlink', () => {
    const keyDir = join(dir, 'keys');
    journalAt({ sign: { keyDir } }, join(dir, 'a.db'));
    chmodSync(join(keyDir, 'journal-ed25519.pem'), 0o644);
    expect(() => journalAt({ sign: { keyDir } }, join(dir, 'b.db'))).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
    const linkDir = join(dir, 'linked');
    mkdirSync(linkDir);
    writeFileSync(join(dir, 'elsewhere.pem'), 'x', { mode: 0o600 });
    symlinkSync(join(dir, 'elsewhere.pem'), join(linkDir, 'journal-ed25519.pem'));
    expect(() => journalAt({ sign: { keyDir: linkDir } }, join(dir, 'c.db'))).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
  });

  it('rejects a public key that is not Ed25519', () => {
    expect(() => journalAt({ publicKey: 'not a key' })).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
  });
});

describe('compaction', () => {
  it('drops old history, appends a checkpoint, and the chain still verifies — also with signatures', async () => {
    const journal = journalAt({ sign: true });
    await fill(journal, 9);
    // The last rows come from another connection, so the compacting one must read the head from the file.
    const other = journalAt({ sign: true }, journal.path);
    await fill(other, 1);
    const cut = Date.now() + 1;
    const compacted = await journal.compact({ before: cut });
    expect(compacted.throughSeq).toBe(13);
    expect(compacted.removed).toMatchObject({ receipts: 10, events: 3 });
    expect(journal.head().seq).toBe(14);
    await fill(journal, 2);
    expect(await journal.verify()).toMatchObject({ ok: true });
    // The triggers are back after compaction.
    expect(() => sqlite3(journal.path, 'DELETE FROM receipts')).toThrow(/append-only/);
  });

  it('never compacts past an unresolved claim', async () => {
    const journal = journalAt();
    await fill(journal, 2);
    await journal.prepare({ key: 'k:c', callId: 'c', runId: undefined, toolName: 't', toolVersion: undefined, agent: undefined, actionDigest: 'k', inputDigest: 'i', arguments: {}, tier: 'effect', startedAt: 1 });
    await fill(journal, 2);
    const compacted = await journal.compact({ before: Date.now() + 1 });
    expect(compacted.throughSeq).toBe(2);
    expect(new Database(journal.path, { readonly: true }).prepare(`SELECT count(*) FROM claims WHERE state = 'claimed'`).pluck().get()).toBe(1);
    expect(await journal.verify()).toMatchObject({ ok: true });
  });
});

/** What an attacker with write access can do without the key: edit a row and recompute every later hash. */
function relinkAfterEdit(path: string, seq: number, edit: (body: string) => string, stripSignatures = false, rowHash = hashRow): void {
  const db = new Database(path);
  db.exec('DROP TRIGGER receipts_no_update; DROP TRIGGER events_no_update');
  const rows = db.prepare<[], Record<string, unknown> & { seq: number; table: string }>(
    `SELECT 'receipts' AS tbl, * FROM receipts UNION ALL SELECT 'events', seq, at, NULL, NULL, NULL, NULL, NULL, body, NULL, NULL, prev_hash, hash FROM events ORDER BY seq`,
  ).all();
  let previous: string | undefined;
  for (const row of rows) {
    const table = row.tbl === 'receipts' ? 'receipts' : 'events';
    const stored = table === 'receipts' ? db.prepare('SELECT * FROM receipts WHERE seq = ?').get(row.seq) : db.prepare('SELECT * FROM events WHERE seq = ?').get(row.seq);
    const fields = { ...(stored as Record<string, unknown>) };
    if (row.seq === seq) fields.body = edit(String(fields.body));
    if (stripSignatures && table === 'receipts') fields.key_id = null;
    const prev = previous ?? String(fields.prev_hash);
    const hash = rowHash(prev, table, row.seq, hashedFields(fields));
    const signature = stripSignatures ? null : (fields.signature ?? null);
    if (table === 'receipts') db.prepare('UPDATE receipts SET body = ?, key_id = ?, signature = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(fields.body, fields.key_id ?? null, signature, prev, hash, row.seq);
    else db.prepare('UPDATE events SET prev_hash = ?, hash = ? WHERE seq = ?').run(prev, hash, row.seq);
    previous = hash;
  }
  for (const table of ['receipts', 'events'] as const) for (const statement of appendOnlyTriggerSql(table)) db.exec(statement);
  db.close();
}
