import { describe, expect, it } from 'vitest';
import { createApprovalLedger, type ApprovalLedger } from './approval-ledger.js';

/** The digest a call id's request was pinned with, taken once. */
function take(ledger: ApprovalLedger, callId: string): string | undefined {
  return ledger.take(callId)?.actionDigest;
}

describe('createApprovalLedger', () => {
  it('hands a pinned digest out once', () => {
    const ledger = createApprovalLedger();
    ledger.raise('c1', 'd1', 'write_note');
    expect(take(ledger, 'c1')).toBe('d1');
    expect(take(ledger, 'c1')).toBeUndefined();
    expect(take(ledger, 'never-pinned')).toBeUndefined();
  });

  it('stays bounded under a flood of call ids, dropping the oldest first, and says it dropped one', () => {
    const ledger = createApprovalLedger(3);
    for (const id of ['a', 'b', 'c']) ledger.raise(id, `digest-${id}`, 'write_note');
    expect(ledger.dropped('a')).toBe(false);
    ledger.raise('d', 'digest-d', 'write_note');
    expect([ledger.dropped('a'), ledger.dropped('b'), ledger.dropped('never-raised')]).toEqual([true, false, false]);
    expect(take(ledger, 'a')).toBeUndefined();
    expect([take(ledger, 'b'), take(ledger, 'c'), take(ledger, 'd')]).toEqual(['digest-b', 'digest-c', 'digest-d']);
  });

  it('keeps the first digest pinned for a call id: a re-evaluation cannot replace what the human saw', () => {
    const ledger = createApprovalLedger();
    ledger.raise('a', 'seen-by-human', 'write_note');
    ledger.raise('a', 'computed-later', 'write_note');
    expect(take(ledger, 'a')).toBe('seen-by-human');
  });

  it('leaves an id that raised requests for two actions with no approval to spend, and keeps one raised twice for the same action', () => {
    const ledger = createApprovalLedger();
    ledger.raise('a', 'shown', 'write_note');
    ledger.raise('a', 'other', 'write_note');
    expect(take(ledger, 'a')).toBe('shown');
    expect(ledger.spend('a')).toBe(false);
    ledger.raise('b', 'same', 'write_note');
    ledger.raise('b', 'same', 'write_note');
    expect(take(ledger, 'b')).toBe('same');
    expect(ledger.spend('b')).toBe(true);
  });

  it('never lets ids raised for two actions push an id that ran out of its bound', () => {
    const ledger = createApprovalLedger(2);
    expect(ledger.spend('ran')).toBe(true);
    for (const id of ['x', 'y', 'z']) {
      ledger.raise(id, 'one', 'write_note');
      ledger.raise(id, 'two', 'write_note');
    }
    expect(ledger.spend('ran')).toBe(false);
  });

  it('tells a request raised alone from one raised while another of its tool awaited an answer', () => {
    const ledger = createApprovalLedger();
    ledger.raise('a', 'd1', 'write_note');
    ledger.raise('r', 'd3', 'read_note');
    ledger.take('r');
    ledger.raise('b', 'd2', 'write_note');
    expect([ledger.take('a')?.alone, ledger.take('b')?.alone]).toEqual([false, false]);
    ledger.raise('c', 'd4', 'write_note');
    expect(ledger.take('c')?.alone).toBe(true);
  });

  it('does not count a request the framework refused as one a later request awaits an answer beside', () => {
    const ledger = createApprovalLedger();
    ledger.raise('old', 'd1', 'write_note');
    ledger.raise('new', 'd2', 'write_note', (callId) => callId === 'old');
    expect(ledger.take('new')?.alone).toBe(true);
    expect(ledger.take('old')).toBeUndefined();
  });

  it('lets a call id spend a framework approval once, within its bound', () => {
    const ledger = createApprovalLedger(2);
    expect(ledger.spend('a')).toBe(true);
    expect(ledger.spend('a')).toBe(false);
    ledger.spend('b');
    ledger.spend('c');
    expect(ledger.spend('c')).toBe(false);
    expect(ledger.spend('a')).toBe(true);
  });
});
