/** The open-claims mirror's index of the claims in doubt, by action: what a claim's check looks up instead of walking every open claim. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChainStore } from './chain-store.js';
import { OpenClaims } from './open-claims.js';
import { appendOnlyTriggerSql, migrateSchema } from './schema.js';
import { claimRow, receiptRow } from './__fixtures__/claim-rows.js';
import { useJournalFolder } from './__fixtures__/journal-folder.js';

const { open } = useJournalFolder('toolgate-open-claims-by-action-');

function connection(): ChainStore {
  const db = open();
  migrateSchema(db);
  return new ChainStore(db, undefined);
}

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
