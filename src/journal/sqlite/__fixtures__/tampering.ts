/**
 * The tampering kit for the journal's adversarial tests: a fresh folder and
 * its journals per test, and what an attacker with write access to the file
 * but not the signing key can do to it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import type { JournalPrepareInput } from '../../../core/internal.js';
import type { ChainHead } from '../chain-store.js';
import type { ReceiptSigner } from '../receipt-signer.js';
import { createSqliteJournal, type SqliteJournalOptions } from '../create-sqlite-journal.js';
import { GENESIS_HASH, hashedFields, hashRow } from '../row-hash.js';
import { appendOnlyTriggerSql, CHAINED_TABLES } from '../schema.js';
import type { SqliteJournal } from '../sqlite-journal.js';
import { appendForged, headOf } from './forge-row.js';
import { receipt } from './receipt.js';

export { appendForged, headOf } from './forge-row.js';

let dir: string;
const open: SqliteJournal[] = [];

/**
 * Give each test of the calling file a fresh folder, its journals closed and
 * the folder removed after it. Called by each file, not run on import: a
 * worker that runs several files imports this module once.
 */
export function useTestFolder(): void {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-adversarial-'));
  });
  afterEach(() => {
    closeJournals();
    rmSync(dir, { recursive: true, force: true });
  });
}

export const keyDir = (): string => join(dir, 'keys');

/** A file in this test's folder. */
export const journalPath = (name: string): string => join(dir, name);

export function journalAt(options: SqliteJournalOptions = {}, path = join(dir, 'journal.db')): SqliteJournal {
  const journal = createSqliteJournal(path, { onUnresolved: () => undefined, ...options });
  open.push(journal);
  return journal;
}

/** Close every journal this test opened (each flushes its anchor). */
export function closeJournals(): void {
  for (const journal of open.splice(0)) journal.close();
}

/** Close one journal now, and stop tracking it. */
export function closeJournal(journal: SqliteJournal): void {
  journal.close();
  open.splice(open.indexOf(journal), 1);
}

export async function settle(journal: SqliteJournal, from: number, to: number): Promise<void> {
  for (let index = from; index <= to; index += 1) await journal.settle(undefined, { ok: true, value: index, content: `ok ${index}`, receipt: receipt(index) });
}

export function effectCall(callId: string): JournalPrepareInput {
  return { key: `act:${callId}`, callId, runId: 'run-1', toolName: 'bump', toolVersion: undefined, agent: undefined, actionDigest: 'act', inputDigest: 'in', arguments: {}, tier: 'effect', startedAt: 1 };
}

/** The row the file ends on, read by a connection of its own. */
export function fileHeadOf(path: string): ChainHead {
  const db = new Database(path, { readonly: true });
  try {
    return headOf(db);
  } finally {
    db.close();
  }
}

/** The attacker's session: drop every guard trigger, tamper, put the journal's own triggers back. */
export function tamper(path: string, work: (db: Database.Database) => void): void {
  const db = new Database(path);
  try {
    for (const table of CHAINED_TABLES) db.exec(`DROP TRIGGER IF EXISTS ${table}_no_update; DROP TRIGGER IF EXISTS ${table}_no_delete;`);
    work(db);
    for (const table of CHAINED_TABLES) for (const statement of appendOnlyTriggerSql(table)) db.exec(statement);
  } finally {
    db.close();
  }
}

/**
 * Rewrite one receipt's body (its `ok N` becomes `FORGED`) and re-hash and
 * re-link every receipt from the first, as a writer without the key can:
 * the chain links again, only signatures and anchors can tell.
 */
export function forgeReceiptRelinked(db: Database.Database, seq: number): void {
  let previous = GENESIS_HASH;
  for (const row of db.prepare<[], Record<string, unknown> & { seq: number }>('SELECT * FROM receipts ORDER BY seq').all()) {
    if (row.seq === seq) row.body = String(row.body).replace(`"ok ${String(seq)}"`, '"FORGED"');
    const hash = hashRow(previous, 'receipts', row.seq, hashedFields(row));
    db.prepare('UPDATE receipts SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(row.body, previous, hash, row.seq);
    previous = hash;
  }
}

/**
 * A journal as toolgate wrote it at schema 1: the tables of the first
 * migration (no key_id or signature on events and claims), receipts signed,
 * events and claims not. Rows: receipt, event, claim (claimed), claim (settled).
 */
export function writeSchema1Journal(path: string, signer: ReceiptSigner): void {
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
