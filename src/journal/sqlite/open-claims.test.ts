import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { OpenClaims } from './open-claims.js';
import { migrateSchema } from './schema.js';

let dir: string;
const databases: Database.Database[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-open-claims-'));
});
afterEach(() => {
  for (const db of databases.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

function connection(): ChainStore {
  const db = new Database(join(dir, 'journal.db'));
  databases.push(db);
  db.pragma('journal_mode = WAL');
  migrateSchema(db);
  return new ChainStore(db, undefined);
}

function claimRow(store: ChainStore, claimId: string, key: string, state = 'claimed'): void {
  store.write(() => store.append('claims', { at: 1, claim_id: claimId, key, state, body: '{}' }));
}

/** What the mirror holds, read inside a write transaction as the journal reads it. */
function openKeys(store: ChainStore, claims: OpenClaims): string[] {
  return store.write(() => [...claims.refresh().values()].map((claim) => `${claim.key}=${claim.claim_id}`));
}

describe('OpenClaims', () => {
  it('follows claims opened and closed by another connection, and starts from the claims already open', () => {
    const other = connection();
    claimRow(other, 'left-open', 'd1:a');
    claimRow(other, 'closed', 'd1:b');
    claimRow(other, 'closed', 'd1:b', 'settled');
    const mine = connection();
    const claims = new OpenClaims(mine.db);
    expect(openKeys(mine, claims)).toEqual(['d1:a=left-open']);
    for (let index = 0; index < 50; index += 1) {
      claimRow(other, `c${index}`, `d2:${index}`);
      claimRow(other, `c${index}`, `d2:${index}`, index % 2 === 0 ? 'settled' : 'discarded');
    }
    claimRow(other, 'fresh', 'd2:fresh');
    claimRow(other, 'left-open', 'd1:a', 'released');
    expect(openKeys(mine, claims)).toEqual(['d2:fresh=fresh']);
    // A key claimed again after it was discarded is open again, under its new claim.
    claimRow(other, 'again-1', 'd3:x');
    claimRow(other, 'again-1', 'd3:x', 'discarded');
    claimRow(other, 'again-2', 'd3:x');
    expect(openKeys(mine, claims)).toEqual(['d2:fresh=fresh', 'd3:x=again-2']);
  });

  it('never trusts a row it saw in a transaction that rolled back: another claim that took its number is seen', () => {
    const mine = connection();
    const claims = new OpenClaims(mine.db);
    claimRow(mine, 'first', 'd1:a', 'claimed');
    claimRow(mine, 'first', 'd1:a', 'settled');
    expect(openKeys(mine, claims)).toEqual([]);
    // A claim appended and seen, then the transaction rolls back: its number is free again.
    expect(() =>
      mine.write(() => {
        mine.append('claims', { at: 1, claim_id: 'rolled-back', key: 'd1:b', state: 'claimed', body: '{}' });
        expect([...claims.refresh().keys()]).toEqual(['d1:b']);
        throw new Error('the commit failed');
      }),
    ).toThrow('the commit failed');
    const other = connection();
    claimRow(other, 'foreign', 'd1:c');
    claimRow(other, 'rolled-back-twin', 'd1:b', 'settled');
    expect(openKeys(mine, claims)).toEqual(['d1:c=foreign']);
  });

  it('rebuilds when compaction dropped the last row it saw', () => {
    const mine = connection();
    const claims = new OpenClaims(mine.db);
    claimRow(mine, 'old', 'd1:a');
    claimRow(mine, 'old', 'd1:a', 'settled');
    expect(openKeys(mine, claims)).toEqual([]);
    mine.db.exec(`DROP TRIGGER claims_no_delete; DELETE FROM claims;`);
    const other = connection();
    claimRow(other, 'new', 'd1:b');
    expect(openKeys(mine, claims)).toEqual(['d1:b=new']);
  });
});
