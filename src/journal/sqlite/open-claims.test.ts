import { describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { OpenClaims } from './open-claims.js';
import { appendOnlyTriggerSql, migrateSchema } from './schema.js';
import { claimRow, openInFile, receiptRow } from './__fixtures__/claim-rows.js';
import { useJournalFolder } from './__fixtures__/journal-folder.js';

const { open } = useJournalFolder('toolgate-open-claims-');

function connection(): ChainStore {
  const db = open();
  migrateSchema(db);
  return new ChainStore(db, undefined);
}

/** Counts the rows the mirror reads from the file: every `all` and `iterate` of the statements prepared on `store` from now on; `failNext` makes the next one throw. */
function countReads(store: ChainStore): { reads: number; failNext: boolean } {
  const count = { reads: 0, failNext: false };
  const prepare = store.db.prepare.bind(store.db);
  store.db.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of ['all', 'iterate'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        count.reads += 1;
        if (count.failNext) {
          count.failNext = false;
          throw new Error('the read failed');
        }
        return original(...args);
      };
    }
    return statement;
  }) as typeof store.db.prepare;
  return count;
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
    const claims = new OpenClaims(mine);
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

  it('takes a receipt that names a claim as settling it, from this connection and from another; a receipt naming another claim, or none, leaves the claim open', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
    claimRow(mine, 'mine', 'd1:a');
    claimRow(mine, 'other-call', 'd1:b');
    claimRow(mine, 'recorded', 'd1:c');
    expect(openKeys(mine, claims)).toEqual(['d1:a=mine', 'd1:b=other-call', 'd1:c=recorded']);
    receiptRow(mine, 'mine', 'd1:a');
    // A receipt for the key under another claim id does not settle the claim the file holds open: it stays in doubt.
    receiptRow(mine, 'not-this-one', 'd1:b');
    // A record-tier receipt names no claim and settles nothing.
    receiptRow(mine, null, 'd1:c');
    expect(openKeys(mine, claims)).toEqual(['d1:b=other-call', 'd1:c=recorded']);

    const other = connection();
    const theirs = new OpenClaims(other);
    expect(openKeys(other, theirs)).toEqual(['d1:b=other-call', 'd1:c=recorded']);
    receiptRow(other, 'other-call', 'd1:b');
    expect(openKeys(mine, claims)).toEqual(['d1:c=recorded']);
    // A receipt seen in a transaction that rolled back settles nothing.
    expect(() =>
      mine.write(() => {
        mine.append('receipts', { at: 1, key: 'd1:c', claim_id: 'recorded', run_id: null, tool: 'bump', action_digest: null, body: '{}' });
        expect([...claims.refresh().keys()]).toEqual([]);
        throw new Error('the commit failed');
      }),
    ).toThrow('the commit failed');
    expect(openKeys(mine, claims)).toEqual(['d1:c=recorded']);
    expect(openKeys(other, theirs)).toEqual(['d1:c=recorded']);
    expect(openKeys(mine, new OpenClaims(connection()))).toEqual(openInFile(mine));
  });

  it('never trusts a row it saw in a transaction that rolled back: another claim that took its number is seen', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
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
    const claims = new OpenClaims(mine);
    claimRow(mine, 'old', 'd1:a');
    claimRow(mine, 'old', 'd1:a', 'settled');
    expect(openKeys(mine, claims)).toEqual([]);
    mine.db.exec(`DROP TRIGGER claims_no_delete; DELETE FROM claims;`);
    const other = connection();
    claimRow(other, 'new', 'd1:b');
    expect(openKeys(mine, claims)).toEqual(['d1:b=new']);
  });

  it('reads nothing from the file while only its own connection writes, and reads again once another one commits', () => {
    const mine = connection();
    const counted = countReads(mine);
    const claims = new OpenClaims(mine);
    expect(openKeys(mine, claims)).toEqual([]);
    const built = counted.reads;
    for (let index = 0; index < 10; index += 1) {
      claimRow(mine, `c${index}`, `d1:${index}`);
      expect(openKeys(mine, claims)).toContain(`d1:${index}=c${index}`);
      if (index % 2 === 0) claimRow(mine, `c${index}`, `d1:${index}`, 'settled');
    }
    expect(counted.reads).toBe(built);
    claimRow(connection(), 'foreign', 'd2:a');
    expect(openKeys(mine, claims)).toContain('d2:a=foreign');
    expect(counted.reads).toBe(built + 1);
    expect(openKeys(mine, claims).sort()).toEqual(openInFile(mine));
  });

  it('reads again after a read of the file that failed', () => {
    const mine = connection();
    const counted = countReads(mine);
    const claims = new OpenClaims(mine);
    expect(openKeys(mine, claims)).toEqual([]);
    claimRow(connection(), 'foreign', 'd1:a');
    counted.failNext = true;
    expect(() => openKeys(mine, claims)).toThrow('the read failed');
    expect(openKeys(mine, claims)).toEqual(['d1:a=foreign']);
  });

  it('sees another connection’s claim committed between two of its own, either way round, even when its next row comes before any check', () => {
    const mine = connection();
    const other = connection();
    const mineClaims = new OpenClaims(mine);
    const otherClaims = new OpenClaims(other);
    expect(openKeys(mine, mineClaims)).toEqual([]);
    expect(openKeys(other, otherClaims)).toEqual([]);
    claimRow(mine, 'm1', 'd1:a');
    claimRow(other, 'o1', 'd1:b');
    claimRow(mine, 'm2', 'd1:c');
    claimRow(other, 'o1', 'd1:b', 'settled');
    // The settle and the next claim in one transaction, the first row written before any check.
    mine.write(() => {
      mine.append('claims', { at: 1, claim_id: 'm1', key: 'd1:a', state: 'settled', body: '{}' });
      mine.append('claims', { at: 1, claim_id: 'm3', key: 'd1:d', state: 'claimed', body: '{}' });
    });
    claimRow(other, 'o2', 'd1:e');
    claimRow(other, 'm2', 'd1:c', 'discarded');
    const expected = ['d1:d=m3', 'd1:e=o2'];
    expect(openInFile(mine)).toEqual(expected);
    expect(openKeys(mine, mineClaims).sort()).toEqual(expected);
    expect(openKeys(other, otherClaims).sort()).toEqual(expected);
  });

  it('is left as it was by a batch that rolled back, and follows the rows that commit after it', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
    claimRow(mine, 'kept', 'd1:a');
    expect(openKeys(mine, claims)).toEqual(['d1:a=kept']);
    const batch = mine.writeBatch([
      () => mine.append('claims', { at: 1, claim_id: 'kept', key: 'd1:a', state: 'settled', body: '{}' }),
      () => mine.append('claims', { at: 1, claim_id: 'lost', key: 'd1:b', state: 'claimed', body: '{}' }),
      () => {
        throw new Error('a write failed');
      },
    ]);
    expect(batch).toBeUndefined();
    expect(openKeys(mine, claims)).toEqual(['d1:a=kept']);
    // The rolled-back rows' numbers are taken again, by this connection and by another.
    claimRow(mine, 'next', 'd1:c');
    claimRow(connection(), 'foreign', 'd1:d');
    claimRow(mine, 'kept', 'd1:a', 'settled');
    expect(openKeys(mine, claims).sort()).toEqual(['d1:c=next', 'd1:d=foreign']);
    expect(openInFile(mine)).toEqual(['d1:c=next', 'd1:d=foreign']);
  });

  it('keeps the open claims through its own compaction, then follows both connections', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
    claimRow(mine, 'done', 'd1:a');
    claimRow(mine, 'done', 'd1:a', 'settled');
    claimRow(mine, 'open', 'd1:b');
    claimRow(mine, 'later', 'd1:c');
    claimRow(mine, 'later', 'd1:c', 'settled');
    expect(openKeys(mine, claims)).toEqual(['d1:b=open']);
    // As compaction does: rows before the oldest open claim dropped inside a write, the trigger restored.
    mine.write(() => {
      mine.db.exec(`DROP TRIGGER claims_no_delete; DELETE FROM claims WHERE seq < 3;`);
      for (const statement of appendOnlyTriggerSql('claims')) mine.db.exec(statement);
      mine.append('claims', { at: 1, claim_id: 'after', key: 'd1:d', state: 'claimed', body: '{}' });
    });
    claimRow(connection(), 'foreign', 'd1:e');
    claimRow(mine, 'open', 'd1:b', 'settled');
    expect(openKeys(mine, claims).sort()).toEqual(['d1:d=after', 'd1:e=foreign']);
    expect(openInFile(mine)).toEqual(['d1:d=after', 'd1:e=foreign']);
  });

  it('starts from the file on reopen: the claims a closed connection left open are there', () => {
    const first = connection();
    const firstClaims = new OpenClaims(first);
    claimRow(first, 'left', 'd1:a');
    claimRow(first, 'closed', 'd1:b');
    claimRow(first, 'closed', 'd1:b', 'settled');
    expect(openKeys(first, firstClaims)).toEqual(['d1:a=left']);
    first.db.close();
    const reopened = connection();
    expect(openKeys(reopened, new OpenClaims(reopened))).toEqual(['d1:a=left']);
  });
});
