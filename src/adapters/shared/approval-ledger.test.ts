import { describe, expect, it } from 'vitest';
import { createApprovalLedger } from './approval-ledger.js';

describe('createApprovalLedger', () => {
  it('hands a pinned digest out once', () => {
    const ledger = createApprovalLedger();
    ledger.raise('c1', 'd1', 'write_note');
    expect(ledger.take('c1')).toBe('d1');
    expect(ledger.take('c1')).toBeUndefined();
    expect(ledger.take('never-pinned')).toBeUndefined();
  });

  it('stays bounded under a flood of call ids, dropping the oldest first', () => {
    const ledger = createApprovalLedger(3);
    for (const id of ['a', 'b', 'c', 'd']) ledger.raise(id, `digest-${id}`, 'write_note');
    expect(ledger.take('a')).toBeUndefined();
    expect([ledger.take('b'), ledger.take('c'), ledger.take('d')]).toEqual(['digest-b', 'digest-c', 'digest-d']);
  });

  it('keeps the first digest pinned for a call id: a re-evaluation cannot replace what the human saw', () => {
    const ledger = createApprovalLedger();
    ledger.raise('a', 'seen-by-human', 'write_note');
    ledger.raise('a', 'computed-later', 'write_note');
    expect(ledger.take('a')).toBe('seen-by-human');
  });

  it('leaves an id that raised requests for two actions with no approval to spend, and keeps one raised twice for the same action', () => {
    const ledger = createApprovalLedger();
    ledger.raise('a', 'shown', 'write_note');
    ledger.raise('a', 'other', 'write_note');
    expect(ledger.take('a')).toBe('shown');
    expect(ledger.spend('a')).toBe(false);
    ledger.raise('b', 'same', 'write_note');
    ledger.raise('b', 'same', 'write_note');
    expect(ledger.take('b')).toBe('same');
    expect(ledger.spend('b')).toBe(true);
  });

  it('tells a request raised alone from one raised beside another of its tool before any call ran', () => {
    const ledger = createApprovalLedger();
    ledger.raise('a', 'd1', 'write_note');
    ledger.raise('b', 'd2', 'write_note');
    ledger.raise('r', 'd3', 'read_note');
    expect([ledger.raisedAlone('a'), ledger.raisedAlone('b'), ledger.raisedAlone('r')]).toEqual([false, false, true]);
    ledger.take('r');
    ledger.raise('c', 'd4', 'write_note');
    expect(ledger.raisedAlone('c')).toBe(true);
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
