import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { loadReceiptSigner, type ReceiptSigner } from '../receipt-signer.js';
import { migrateSchema } from '../schema.js';

export interface JournalFolder {
  /** This test's own folder. */
  readonly dir: () => string;
  /** A connection to `journal.db` in it, in WAL mode, closed after the test. */
  readonly open: () => Database.Database;
}

/** A fresh folder for each test's journal file, removed after the test with every connection opened on it closed. */
export function useJournalFolder(prefix: string): JournalFolder {
  let dir = '';
  const databases: Database.Database[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(() => {
    for (const db of databases.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir: () => dir,
    open: () => {
      const db = new Database(join(dir, 'journal.db'));
      databases.push(db);
      db.pragma('journal_mode = WAL');
      return db;
    },
  };
}

/** A fresh folder per test with a migrated `journal.db` and a signing key beside it: `open()` inside a test or its `beforeEach`. */
export function useSignedJournalFile(prefix: string): { readonly open: () => { db: Database.Database; signer: ReceiptSigner } } {
  const folder = useJournalFolder(prefix);
  return {
    open: () => {
      const db = folder.open();
      migrateSchema(db);
      return { db, signer: loadReceiptSigner(join(folder.dir(), 'keys')) };
    },
  };
}
