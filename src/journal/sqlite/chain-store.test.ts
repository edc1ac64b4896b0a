import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { OpenClaims } from './open-claims.js';
import { migrateSchema } from './schema.js';

let dir: string;
let db: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-chain-store-'));
  db = new Database(join(dir, 'journal.db'));
  db.pragma('journal_mode = WAL');
  migrateSchema(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ChainStore.write', () => {
  it('refuses to run inside another write, whose rows the open-claims mirror would otherwise count as committed early', () => {
    const store = new ChainStore(db, undefined);
    const claims = new OpenClaims(store);
    expect(() =>
      store.write(() => {
        store.append('claims', { at: 1, claim_id: 'outer', key: 'd1:a', state: 'claimed', body: '{}' });
        store.write(() => store.append('claims', { at: 1, claim_id: 'inner', key: 'd1:b', state: 'claimed', body: '{}' }));
      }),
    ).toThrow('ChainStore.write does not nest');
    expect(db.prepare('SELECT count(*) AS rows FROM claims').get()).toEqual({ rows: 0 });
    expect([...store.write(() => claims.refresh()).keys()]).toEqual([]);
  });
});
