import type Database from 'better-sqlite3';
import { ConfigurationError } from '../../core/internal.js';

/** The chained tables, in the order a merge walk visits ties (there are none: `seq` is global). */
export const CHAINED_TABLES = ['events', 'claims', 'receipts', 'checkpoints'] as const;
export type ChainedTable = (typeof CHAINED_TABLES)[number];

/**
 * Every hashed column of each table; a row is hashed with all of them, NULL
 * included, except the `key_id` of `events` and `claims` (see
 * `KEY_ID_HASHED_WHEN_SET`).
 */
export const HASHED_COLUMNS: Readonly<Record<ChainedTable, readonly string[]>> = {
  events: ['at', 'type', 'body', 'key_id'],
  claims: ['at', 'claim_id', 'key', 'state', 'body', 'key_id'],
  receipts: ['at', 'key', 'claim_id', 'run_id', 'tool', 'action_digest', 'body', 'key_id'],
  checkpoints: ['at', 'through_seq', 'through_hash', 'body', 'key_id'],
};

/** Columns that carry the chain itself; every other column is hashed. */
export const CHAIN_COLUMNS = new Set(['seq', 'prev_hash', 'hash', 'signature']);

/**
 * Tables that gained `key_id` and `signature` in schema 2 (before it only
 * receipts and checkpoints were signed). Their `key_id` is hashed only when
 * set, so an unsigned row hashes exactly as it did under schema 1 and rows
 * written before the upgrade still verify.
 */
export const KEY_ID_HASHED_WHEN_SET: ReadonlySet<ChainedTable> = new Set(['events', 'claims']);

/**
 * Append-only guard. An UPDATE of any chained row, or a DELETE outside a
 * compaction (which drops and recreates these inside its own transaction),
 * raises. A writer with file access can still drop them: `verify()` is the
 * check that does not trust the writer.
 */
export function appendOnlyTriggerSql(table: ChainedTable): string[] {
  return [
    `CREATE TRIGGER IF NOT EXISTS ${table}_no_update BEFORE UPDATE ON ${table} BEGIN SELECT RAISE(ABORT, 'toolgate journal: ${table} rows are append-only'); END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_no_delete BEFORE DELETE ON ${table} BEGIN SELECT RAISE(ABORT, 'toolgate journal: ${table} rows are append-only'); END`,
  ];
}

export function triggerNames(): string[] {
  return CHAINED_TABLES.flatMap((table) => [`${table}_no_update`, `${table}_no_delete`]);
}

/** Each append-only trigger the journal creates: its name, its table and its SQL. */
export function appendOnlyTriggers(): { name: string; table: ChainedTable; sql: string }[] {
  return CHAINED_TABLES.flatMap((table) =>
    appendOnlyTriggerSql(table).map((sql) => ({ name: /^CREATE TRIGGER IF NOT EXISTS (\w+) /.exec(sql)?.[1] ?? '', table, sql })),
  );
}

/**
 * A trigger's or table's SQL in a form that compares equal however it was
 * spelled: SQLite stores `CREATE TRIGGER name …` without `IF NOT EXISTS` and
 * without the final semicolon; case and whitespace carry no meaning for what
 * it does.
 */
export function normaliseSchemaSql(sql: string): string {
  return sql
    .replace(/^\s*create\s+trigger\s+(?:if\s+not\s+exists\s+)?/i, 'create trigger ')
    .replace(/\s+/g, ' ')
    .replace(/ ?([(),;]) ?/g, '$1')
    .replace(/;$/, '')
    .trim()
    .toLowerCase();
}

const CHAIN = 'prev_hash TEXT NOT NULL, hash TEXT NOT NULL';

/** The table of receipts by key (`ReceiptKeys`), as `verify()` expects to find it declared. */
export const RECEIPT_KEYS_TABLE_SQL = `CREATE TABLE receipt_keys (key TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (key, seq)) WITHOUT ROWID`;

/** Schema migrations, in code; `PRAGMA user_version` records how many ran. Append new steps; never edit old ones. */
const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE events (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, ${CHAIN})`,
    `CREATE TABLE claims (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, claim_id TEXT NOT NULL, key TEXT NOT NULL,
       state TEXT NOT NULL CHECK (state IN ('claimed', 'settled', 'discarded', 'released')), body TEXT NOT NULL, ${CHAIN})`,
    `CREATE INDEX claims_by_key ON claims (key, seq)`,
    `CREATE TABLE receipts (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, key TEXT NOT NULL, claim_id TEXT, run_id TEXT, tool TEXT NOT NULL,
       action_digest TEXT, body TEXT NOT NULL, key_id TEXT, signature TEXT, ${CHAIN})`,
    `CREATE INDEX receipts_by_key ON receipts (key, seq)`,
    `CREATE INDEX receipts_by_run ON receipts (run_id, seq)`,
    `CREATE TABLE checkpoints (seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, through_seq INTEGER NOT NULL, through_hash TEXT NOT NULL,
       body TEXT NOT NULL, key_id TEXT, signature TEXT, ${CHAIN})`,
    ...CHAINED_TABLES.flatMap(appendOnlyTriggerSql),
  ],
  // Every chained row is signed when signing is on, not only receipts and checkpoints.
  [
    `ALTER TABLE events ADD COLUMN key_id TEXT`,
    `ALTER TABLE events ADD COLUMN signature TEXT`,
    `ALTER TABLE claims ADD COLUMN key_id TEXT`,
    `ALTER TABLE claims ADD COLUMN signature TEXT`,
  ],
  // Only the last row of a commit is signed (the rows before it carry no key id, covered through the chain),
  // which a verifier of schema 2 would report as unsigned. The open claims are mirrored in memory, read by
  // sequence number (`OpenClaims`): the index by key only cost every claim row a page write.
  [`DROP INDEX IF EXISTS claims_by_key`],
  // An effect-tier call's receipt, which names its claim, settles it: no `settled` claim row follows it. A toolgate
  // of schema 3 would take every such claim for one a crash left open, so this step only moves the version on.
  [],
  // Where each run's receipts begin (`RunIndex`), in place of the index of receipts by run, which cost every
  // receipt a page write per commit.
  [
    `CREATE TABLE runs (run_id TEXT PRIMARY KEY, first_seq INTEGER NOT NULL) WITHOUT ROWID`,
    `INSERT INTO runs (run_id, first_seq) SELECT run_id, min(seq) FROM receipts WHERE run_id IS NOT NULL GROUP BY run_id`,
    `DROP INDEX IF EXISTS receipts_by_run`,
  ],
  // Receipts by key, folded in a few hundred at a time (`ReceiptKeys`), in place of the index of receipts by key,
  // which cost every commit a page write.
  [
    RECEIPT_KEYS_TABLE_SQL,
    `INSERT INTO receipt_keys (key, seq) SELECT key, seq FROM receipts`,
    `INSERT OR REPLACE INTO meta (name, value) SELECT 'receipt_keys_through', coalesce(max(seq), 0) FROM receipts`,
    `DROP INDEX IF EXISTS receipts_by_key`,
  ],
  // The long texts of results, stored once by digest (`ResultBlobs`): the same file read again and again was
  // recorded whole each time.
  [`CREATE TABLE blobs (digest TEXT NOT NULL UNIQUE, text TEXT NOT NULL)`],
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Bring the file up to the current schema inside one immediate transaction
 * (safe against a concurrent opener). `through` stops at an earlier version:
 * a file as an older toolgate left it, for the tests of a later step.
 */
export function migrateSchema(db: Database.Database, through = SCHEMA_VERSION): void {
  const run = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > SCHEMA_VERSION) throw new ConfigurationError('journal', `has schema version ${current}, newer than this toolgate's ${SCHEMA_VERSION}`);
    for (const step of MIGRATIONS.slice(current, through)) for (const statement of step) db.exec(statement);
    if (current < through) db.pragma(`user_version = ${through}`);
  });
  run.immediate();
}

/**
 * The file's identity, made once on first open (not a migration: an older
 * toolgate still opens the file): `id` when given, else a random one. It is not chained, so it proves nothing
 * alone; an anchor names it so that a file swapped for another journal, or
 * deleted and recreated, is told apart from one whose tail was cut.
 */
export function ensureJournalId(db: Database.Database, id?: string): void {
  if (id === undefined) db.prepare(`INSERT OR IGNORE INTO meta (name, value) VALUES ('journal_id', lower(hex(randomblob(16))))`).run();
  else db.prepare(`INSERT OR IGNORE INTO meta (name, value) VALUES ('journal_id', ?)`).run(id);
}

/** The id `ensureJournalId` made, or undefined when the row is gone. */
export function journalIdOf(db: Database.Database): string | undefined {
  return db.prepare<[], string>(`SELECT value FROM meta WHERE name = 'journal_id'`).pluck().get();
}
