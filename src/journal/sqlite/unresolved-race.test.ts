/**
 * A signed journal lists its open claims from the mirror the walk keeps,
 * and reads each claim's row from the file: both in one read transaction.
 * Read apart, another process that settles a claim and compacts it away in
 * between would leave the list naming a row the file no longer holds, and
 * the journal would refuse a file nobody tampered with.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpenClaims } from './open-claims.js';
import type { SqliteJournal } from './sqlite-journal.js';
import { effectCall, journalAt, keyDir, useTestFolder } from './__fixtures__/tampering.js';
import { receipt } from './__fixtures__/receipt.js';

useTestFolder();

const signed = (): SqliteJournal => journalAt({ sign: { keyDir: keyDir() } });

afterEach(() => {
  vi.restoreAllMocks();
});

describe('unresolved claims while another signed journal settles and compacts', () => {
  it('a claim settled and compacted away between the mirror and the read of its row does not stop the journal', async () => {
    const running = signed();
    const other = signed();
    const prepared = await other.prepare(effectCall('c1'));
    if (prepared.status !== 'claimed') throw new Error('expected a claim');
    // The other journal's call is in flight: listed by the running one.
    expect((await running.unresolved()).map((open) => open.claimId)).toEqual([prepared.claim.claimId]);

    // The method itself, called below with each mirror as `this`.
    const refresh = Object.getOwnPropertyDescriptor(OpenClaims.prototype, 'refresh')?.value as OpenClaims['refresh'];
    let raced = false;
    vi.spyOn(OpenClaims.prototype, 'refresh').mockImplementation(function (this: OpenClaims) {
      const open = refresh.call(this);
      if (!raced) {
        raced = true;
        // Just after the running journal's mirror caught up: the other settles the claim and compacts it away.
        void other.settle(prepared.claim, { ok: true, value: 1, content: 'ok 1', receipt: receipt(1) });
        void other.compact({ before: Date.now() + 60_000 });
      }
      return open;
    });
    await running.unresolved();
    expect(raced).toBe(true);
    expect(other.head().seq).toBeGreaterThan(2);
    expect(running.headProblem()).toBeUndefined();
    expect(await running.unresolved()).toEqual([]);
  });

  it('a claim another journal settled, then compacted away before this one walked the receipt, no longer refuses its action', async () => {
    const running = signed();
    const other = signed();
    const prepared = await other.prepare(effectCall('c1'));
    if (prepared.status !== 'claimed') throw new Error('expected a claim');
    expect((await running.prepare(effectCall('c2'))).status).toBe('refused');
    // The receipt that settles the claim is dropped with it, before the running journal walks either.
    await other.settle(prepared.claim, { ok: true, value: 1, content: 'ok 1', receipt: receipt(1) });
    expect((await other.compact({ before: Date.now() + 60_000 })).throughSeq).toBeGreaterThanOrEqual(2);
    expect(await running.unresolved()).toEqual([]);
    expect((await running.prepare(effectCall('c2'))).status).toBe('claimed');
    expect(running.headProblem()).toBeUndefined();
  });
});
