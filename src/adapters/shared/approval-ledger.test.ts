import { describe, expect, it } from 'vitest';
import { createApprovalLedger } from './approval-ledger.js';

describe('createApprovalLedger', () => {
  it('hands a pinned digest out once', () => {
    const ledger = createApprovalLedger();
    ledger.pin('c1', 'd1');
    expect(ledger.take('c1')).toBe('d1');
    expect(ledger.take('c1')).toBeUndefined();
    expect(ledger.take('never-pinned')).toBeUndefined();
  });

  it('stays bounded under a flood of call ids, dropping the oldest first', () => {
    const ledger = createApprovalLedger(3);
    for (const id of ['a', 'b', 'c', 'd']) ledger.pin(id, `digest-${id}`);
    expect(ledger.take('a')).toBeUndefined();
    expect([ledger.take('b'), ledger.take('c'), ledger.take('d')]).toEqual(['digest-b', 'digest-c', 'digest-d']);
  });

  it('re-pinning a call id replaces its digest and refreshes its age', () => {
    const ledger = createApprovalLedger(2);
    ledger.pin('a', 'old');
    ledger.pin('b', 'b');
    ledger.pin('a', 'new');
    ledger.pin('c', 'c');
    expect(ledger.take('b')).toBeUndefined();
    expect(ledger.take('a')).toBe('new');
  });
});
