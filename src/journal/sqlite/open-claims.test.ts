import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { OpenClaims } from './open-claims.js';
import { appendOnlyTriggerSql, migrateSchema } from './schema.js';
import { useJournalFolder } from './__fixtures__/journal-folder.js';

const { open } = useJournalFolder('toolgate-open-claims-');

function connection(): ChainStore {
  const db = open();
  migrateSchema(db);
  return new ChainStore(db, undefined);
}

function claimRow(store: ChainStore, claimId: string, key: string, state = 'claimed'): void {
  store.write(() => store.append('claims', { at: 1, claim_id: claimId, key, state, body: '{}' }));
}

/** An effect-tier call's receipt, naming its claim (`null`: a record-tier receipt, which names none). */
function receiptRow(store: ChainStore, claimId: string | null, key: string): void {
  store.write(() => store.append('receipts', { at: 1, key, claim_id: claimId, run_id: null, tool: 'bump', action_digest: null, body: '{}' }));
}

/** The open claims as the file holds them, read row by row (a receipt settles the claim it names): what the mirror must agree with. */
function openInFile(store: ChainStore): string[] {
  const latest = new Map<string, { claim_id: string; state: string }>();
  const rows = store.db
    .prepare<[], { claim_id: string; key: string; state: string }>(
      `SELECT seq, claim_id, key, state FROM claims UNION ALL SELECT seq, claim_id, key, 'receipt' FROM receipts WHERE claim_id IS NOT NULL ORDER BY seq`,
    )
    .all();
  for (const row of rows) if (row.state !== 'receipt' || latest.get(row.key)?.claim_id === row.claim_id) latest.set(row.key, row);
  return [...latest]
    .filter(([, row]) => row.state === 'claimed')
    .map(([key, row]) => `${key}=${row.claim_id}`)
    .sort();
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

/** The open claim of `action` the mirror doubts, read inside a write transaction as a claim's check reads it. */
function doubtedOf(store: ChainStore, claims: OpenClaims, action: string): string | undefined {
  return store.write(() => {
    claims.refresh();
    return claims.doubtedClaimOf(action)?.claim_id;
  });
}

/** Claim as the journal does: held first, then the row appended. */
function heldClaim(store: ChainStore, claims: OpenClaims, claimId: string, key: string): void {
  claims.hold(key, claimId);
  claimRow(store, claimId, key);
}

describe('OpenClaims, the claims in doubt by action', () => {
  it('doubts an open claim of the action that this instance does not hold, and none of its own', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
    heldClaim(mine, claims, 'm1', 'd1:a');
    heldClaim(mine, claims, 'm2', 'd1:b');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
    // A claim row appended without being held (a claim of an earlier run this instance does not hold).
    claimRow(mine, 'left', 'd1:c');
    expect(doubtedOf(mine, claims, 'd1')).toBe('left');
    expect(doubtedOf(mine, claims, 'd2')).toBeUndefined();
    // Another action whose digest begins with this one's is another action.
    expect(doubtedOf(mine, claims, 'd')).toBeUndefined();
    claimRow(mine, 'left', 'd1:c', 'released');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
  });

  it('doubts a claim of its own once it lets go of it while the claim is still open, and not once its receipt closed it', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
    heldClaim(mine, claims, 'settled', 'd1:a');
    heldClaim(mine, claims, 'failed', 'd1:b');
    receiptRow(mine, 'settled', 'd1:a');
    claims.release('settled');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
    // Its receipt never committed: the claim stays open and is in doubt.
    claims.release('failed');
    expect(doubtedOf(mine, claims, 'd1')).toBe('failed');
    // Held again (a claim run again after its batch rolled back), it is this instance's once more.
    claims.hold('d1:b', 'failed');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
  });

  it('doubts a row that names a held claim under another key: the claim is held only under the key it was claimed under', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
    heldClaim(mine, claims, 'm1', 'd1:a');
    claimRow(mine, 'm1', 'd1:z');
    expect(doubtedOf(mine, claims, 'd1')).toBe('m1');
    claims.release('m1');
    expect(doubtedOf(mine, claims, 'd1')).toBe('m1');
    claimRow(mine, 'm1', 'd1:z', 'released');
    expect(doubtedOf(mine, claims, 'd1')).toBe('m1');
    claimRow(mine, 'm1', 'd1:a', 'discarded');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
  });

  it('finds the claims of an action whose digest holds a colon by the keys that begin with it', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
    claimRow(mine, 'odd', 'a:b:call');
    heldClaim(mine, claims, 'held', 'a:b:mine');
    expect(doubtedOf(mine, claims, 'a:b')).toBe('odd');
    expect(doubtedOf(mine, claims, 'a')).toBe('odd');
    claimRow(mine, 'odd', 'a:b:call', 'released');
    expect(doubtedOf(mine, claims, 'a:b')).toBeUndefined();
    // A key without a colon names no action.
    claimRow(mine, 'bare', 'nocolon');
    expect(doubtedOf(mine, claims, 'nocolon')).toBeUndefined();
  });

  it('sees another connection’s claims of the action open and close', () => {
    const mine = connection();
    const other = connection();
    const claims = new OpenClaims(mine);
    heldClaim(mine, claims, 'm1', 'd1:a');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
    claimRow(other, 'o1', 'd1:b');
    expect(doubtedOf(mine, claims, 'd1')).toBe('o1');
    receiptRow(other, 'o1', 'd1:b');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
    // The other connection resolves this instance's own claim: it is closed, held or not.
    claimRow(other, 'm1', 'd1:a', 'released');
    claims.release('m1');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
  });

  it('is left as it was by a transaction that rolled back: a claim it closed is in doubt again, a claim it opened is gone', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
    claimRow(mine, 'left', 'd1:a');
    heldClaim(mine, claims, 'm1', 'd2:a');
    expect(doubtedOf(mine, claims, 'd1')).toBe('left');
    expect(() =>
      mine.write(() => {
        mine.append('claims', { at: 1, claim_id: 'left', key: 'd1:a', state: 'released', body: '{}' });
        mine.append('claims', { at: 1, claim_id: 'lost', key: 'd3:a', state: 'claimed', body: '{}' });
        mine.append('receipts', { at: 1, key: 'd2:a', claim_id: 'm1', run_id: null, tool: 'bump', action_digest: null, body: '{}' });
        claims.refresh();
        expect(claims.doubtedClaimOf('d1')).toBeUndefined();
        expect(claims.doubtedClaimOf('d3')?.claim_id).toBe('lost');
        throw new Error('the commit failed');
      }),
    ).toThrow('the commit failed');
    expect(doubtedOf(mine, claims, 'd1')).toBe('left');
    expect(doubtedOf(mine, claims, 'd3')).toBeUndefined();
    expect(doubtedOf(mine, claims, 'd2')).toBeUndefined();
    // The receipt that rolled back left this instance's claim open; let go of, it is in doubt.
    claims.release('m1');
    expect(doubtedOf(mine, claims, 'd2')).toBe('m1');
  });

  it('keeps the claims in doubt, and its own out of doubt, across a rebuild after compaction', () => {
    const mine = connection();
    const claims = new OpenClaims(mine);
    claimRow(mine, 'done', 'd1:x');
    claimRow(mine, 'done', 'd1:x', 'settled');
    claimRow(mine, 'left', 'd1:a');
    heldClaim(mine, claims, 'm1', 'd1:b');
    expect(doubtedOf(mine, claims, 'd1')).toBe('left');
    mine.db.exec(`DROP TRIGGER claims_no_delete; DELETE FROM claims WHERE seq < 3;`);
    // Another connection's claim takes the next number: the mirror reads the file and rebuilds.
    claimRow(connection(), 'foreign', 'd2:a');
    claimRow(mine, 'left', 'd1:a', 'released');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
    expect(doubtedOf(mine, claims, 'd2')).toBe('foreign');
    claims.release('m1');
    expect(doubtedOf(mine, claims, 'd1')).toBe('m1');
    // Every claim row dropped, open ones too: the rebuilt mirror doubts nothing it no longer finds.
    mine.db.exec(`DELETE FROM claims;`);
    claimRow(connection(), 'after', 'd2:b');
    expect(doubtedOf(mine, claims, 'd1')).toBeUndefined();
    expect(doubtedOf(mine, claims, 'd2')).toBe('after');
  });

  it('agrees with a walk of every open claim, whatever this instance, another connection and rolled-back transactions do', () => {
    const actions = ['d1', 'd2'];
    let runs = 0;
    const step = fc.oneof(
      fc.record({ kind: fc.constant('claim' as const), action: fc.constantFrom(...actions), call: fc.nat(5), hold: fc.boolean(), other: fc.boolean(), rollBack: fc.boolean() }),
      fc.record({ kind: fc.constant('close' as const), pick: fc.nat(), state: fc.constantFrom('receipt', 'discarded', 'released'), other: fc.boolean(), rollBack: fc.boolean() }),
      fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('compact' as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const mine = connection();
        const other = connection();
        const claims = new OpenClaims(mine);
        // What this instance holds, by claim id, as the journal keeps it: the key each was claimed under.
        const held = new Map<string, string>();
        // Claim ids of their own each run: the runs share one file.
        const run = (runs += 1);
        let next = 0;
        for (const entry of steps) {
          const open = store(mine, claims);
          if (entry.kind === 'claim') {
            const key = `${entry.action}:${entry.call}`;
            if (open.has(key)) continue;
            const claimId = `r${run}c${(next += 1)}`;
            const writer = entry.other ? other : mine;
            if (entry.hold && !entry.other) {
              claims.hold(key, claimId);
              held.set(claimId, key);
            }
            write(writer, entry.rollBack, () => writer.append('claims', { at: 1, claim_id: claimId, key, state: 'claimed', body: '{}' }));
          } else if (entry.kind === 'close') {
            const target = [...open.values()][entry.pick % Math.max(open.size, 1)];
            if (target === undefined) continue;
            const writer = entry.other ? other : mine;
            write(writer, entry.rollBack, () =>
              entry.state === 'receipt'
                ? writer.append('receipts', { at: 1, key: target.key, claim_id: target.claim_id, run_id: null, tool: 'bump', action_digest: null, body: '{}' })
                : writer.append('claims', { at: 1, claim_id: target.claim_id, key: target.key, state: entry.state, body: '{}' }),
            );
          } else if (entry.kind === 'release') {
            const target = [...held][entry.pick % Math.max(held.size, 1)];
            if (target === undefined) continue;
            claims.release(target[0]);
            held.delete(target[0]);
          } else {
            // As compaction does: the rows before the oldest open claim dropped inside a write of another connection.
            const oldest = Math.min(...[...store(other, new OpenClaims(other)).values()].map((claim) => claim.seq), other.head().seq + 1);
            other.write(() => {
              other.db.exec(`DROP TRIGGER IF EXISTS claims_no_delete; DROP TRIGGER IF EXISTS receipts_no_delete;`);
              other.db.prepare(`DELETE FROM claims WHERE seq < ?`).run(oldest);
              other.db.prepare(`DELETE FROM receipts WHERE seq < ?`).run(oldest);
              for (const statement of [...appendOnlyTriggerSql('claims'), ...appendOnlyTriggerSql('receipts')]) other.db.exec(statement);
              other.append('claims', { at: 1, claim_id: `r${run}c${(next += 1)}`, key: 'd9:checkpoint', state: 'released', body: '{}' });
            });
          }
          const now = store(mine, claims);
          for (const action of actions) {
            const walked = [...now.values()].find((claim) => claim.key.startsWith(`${action}:`) && held.get(claim.claim_id) !== claim.key);
            const found = mine.write(() => claims.doubtedClaimOf(action));
            expect(found === undefined).toBe(walked === undefined);
            if (found !== undefined) {
              expect(now.get(found.key)).toBe(found);
              expect(held.get(found.claim_id)).not.toBe(found.key);
            }
          }
        }
        mine.db.close();
        other.db.close();
      }),
      { numRuns: 150 },
    );
  });
});

/** The mirror's open claims, brought up to the file inside a write. */
function store(writer: ChainStore, claims: OpenClaims): ReadonlyMap<string, { seq: number; claim_id: string; key: string }> {
  return writer.write(() => new Map(claims.refresh()));
}

/** Run `append` in a write of its own, rolled back when `rollBack`. */
function write(writer: ChainStore, rollBack: boolean, append: () => unknown): void {
  try {
    writer.write(() => {
      append();
      if (rollBack) throw new Error('rolled back');
    });
  } catch (error) {
    if (!rollBack) throw error;
  }
}
