import { describe, expect, it, vi } from 'vitest';
import { ApprovalBoard } from './approval-board.js';
import type { ApprovalChange, PendingApproval } from './console-types.js';

const approval = (index: number): PendingApproval => ({ id: `ap_${index}`, callId: `call-${index}`, toolName: 'write_file' }) as PendingApproval;

describe('ApprovalBoard', () => {
  it('shows an approval until it is closed, once, and tells every listener', () => {
    const board = new ApprovalBoard();
    const changes: ApprovalChange['type'][] = [];
    board.subscribe((change) => changes.push(change.type));
    board.open(approval(1), () => undefined);
    expect(board.pending().map((entry) => entry.id)).toEqual(['ap_1']);
    expect(board.close(approval(1), 'expired')).toBe(true);
    expect(board.close(approval(1), 'approve')).toBe(false);
    expect(board.pending()).toEqual([]);
    expect(board.closed()).toMatchObject([{ id: 'ap_1', callId: 'call-1', outcome: 'expired' }]);
    expect(changes).toEqual(['added', 'resolved']);
  });

  it('hands a decision only to an approval still waiting', () => {
    const board = new ApprovalBoard();
    const settle = vi.fn();
    board.open(approval(1), settle);
    expect(board.decide('ap_1', { outcome: 'approve', scope: 'once' })).toBe(true);
    expect(settle).toHaveBeenCalledWith({ outcome: 'approve', scope: 'once' });
    board.close(approval(1), 'approve');
    expect(board.decide('ap_1', { outcome: 'reject' })).toBe(false);
    expect(board.decide('ap_unknown', { outcome: 'reject' })).toBe(false);
  });

  it('remembers the 50 most recently closed, oldest first', () => {
    const board = new ApprovalBoard();
    for (let index = 0; index < 60; index += 1) {
      board.open(approval(index), () => undefined);
      board.close(approval(index), 'reject');
    }
    const closed = board.closed();
    expect(closed).toHaveLength(50);
    expect(closed[0]?.id).toBe('ap_10');
    expect(closed[49]?.id).toBe('ap_59');
  });

  it('goes on past a listener that throws, and stops telling one that unsubscribed', () => {
    const board = new ApprovalBoard();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const seen: string[] = [];
    board.subscribe(() => {
      throw new Error('listener failed');
    });
    const stop = board.subscribe((change) => seen.push(change.type));
    board.open(approval(1), () => undefined);
    stop();
    board.close(approval(1), 'withdrawn');
    expect(seen).toEqual(['added']);
    expect(warn).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });
});
