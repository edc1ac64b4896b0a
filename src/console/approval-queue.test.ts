import { describe, expect, it } from 'vitest';
import type { ToolApprovalDecision, ToolApprovalRequest } from '../core/internal.js';
import { approvalRequest } from '../core/policy/__fixtures__/approval-request.js';
import { APPROVAL_EXPIRED_REASON, APPROVAL_QUEUE_FULL_REASON, createApprovalQueue, DEFAULT_MAX_PENDING_APPROVALS, type ApprovalChange } from './approval-queue.js';

function request(index: number): ToolApprovalRequest {
  return approvalRequest({
    callId: `call-${index}`,
    toolName: 'write_file',
    agent: 'mcp-client',
    action: 'fs_write',
    target: { path: `f${index}.txt` },
    actionDigest: `digest-${index}`,
    arguments: { path: `f${index}.txt`, content: 'x' },
  });
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('createApprovalQueue', () => {
  it('holds at most 100 approvals by default; beyond that a request is refused at once, never queued or shown', async () => {
    const queue = createApprovalQueue();
    const added: string[] = [];
    queue.subscribe((change) => {
      if (change.type === 'added') added.push(change.approval.callId);
    });
    const held = Array.from({ length: DEFAULT_MAX_PENDING_APPROVALS }, (_, index) => queue.confirm(request(index)));
    await settle();
    expect(queue.pending()).toHaveLength(DEFAULT_MAX_PENDING_APPROVALS);

    const over = await Promise.all(Array.from({ length: 50 }, (_, index) => queue.confirm(request(1000 + index))));
    for (const decision of over) {
      expect(decision.outcome).toBe('reject');
      expect(decision.outcome === 'reject' && decision.reason).toContain(APPROVAL_QUEUE_FULL_REASON);
    }
    expect(queue.pending()).toHaveLength(DEFAULT_MAX_PENDING_APPROVALS);
    expect(added).toHaveLength(DEFAULT_MAX_PENDING_APPROVALS);
    expect(added).not.toContain('call-1000');

    // Deciding one frees one slot, and only one.
    const first = queue.pending()[0];
    expect(first).toBeDefined();
    expect(queue.decide(first?.id ?? '', { outcome: 'reject', reason: 'no' })).toBe(true);
    await expect(held[0]).resolves.toMatchObject({ outcome: 'reject', reason: 'no' });
    const next = queue.confirm(request(2000));
    await settle();
    expect(queue.pending().map((approval) => approval.callId)).toContain('call-2000');
    await expect(queue.confirm(request(2001))).resolves.toMatchObject({ outcome: 'reject' });

    for (const approval of queue.pending()) queue.decide(approval.id, { outcome: 'approve' });
    await Promise.all([...held, next]);
    expect(queue.pending()).toHaveLength(0);
  });

  it('counts approvals still being enriched, so a concurrent burst cannot slip past the cap', async () => {
    let enriched = 0;
    const queue = createApprovalQueue({
      maxPending: 3,
      enrich: async () => {
        enriched += 1;
        await settle();
        return { diff: 'd' };
      },
    });
    const decisions: Promise<ToolApprovalDecision>[] = Array.from({ length: 20 }, (_, index) => queue.confirm(request(index)));
    const refused = await Promise.all(decisions.slice(3));
    expect(refused.every((decision) => decision.outcome === 'reject' && decision.reason?.includes(APPROVAL_QUEUE_FULL_REASON))).toBe(true);
    await settle();
    expect(enriched).toBe(3);
    expect(queue.pending()).toHaveLength(3);
    for (const approval of queue.pending()) queue.decide(approval.id, { outcome: 'approve' });
    await expect(Promise.all(decisions.slice(0, 3))).resolves.toEqual([{ outcome: 'approve' }, { outcome: 'approve' }, { outcome: 'approve' }]);
  });

  it('frees the slot of a cancelled approval', async () => {
    const queue = createApprovalQueue({ maxPending: 1 });
    const controller = new AbortController();
    const cancelled = queue.confirm(request(0), controller.signal);
    await settle();
    await expect(queue.confirm(request(1))).resolves.toMatchObject({ outcome: 'reject' });
    controller.abort(new Error('client went away'));
    await expect(cancelled).rejects.toThrow('client went away');
    const again = queue.confirm(request(2));
    await settle();
    expect(queue.pending().map((approval) => approval.callId)).toEqual(['call-2']);
    queue.decide(queue.pending()[0]?.id ?? '', { outcome: 'approve' });
    await expect(again).resolves.toEqual({ outcome: 'approve' });
  });

  it('shows the masked target, the masked count and the reasons, never the resolved action', async () => {
    const queue = createApprovalQueue();
    const shown = approvalRequest({
      toolName: 'write_file',
      action: 'fs_write',
      target: { path: 'src/api_key=0000/../../.git/config' },
      arguments: { path: 'src/api_key=[redacted]/../../.git/config', content: 'x' },
      reasons: { reason: 'protected_path', protectedPath: true, mode: 'ask' },
    });
    const decision = queue.confirm(shown);
    await settle();
    const [pending] = queue.pending();
    expect(pending?.target?.files).toEqual([{ path: '.git/config', requested: 'src/api_key=[redacted]/../../.git/config', flags: [] }]);
    expect(pending?.masked).toBe(1);
    expect(pending?.reasons).toMatchObject({ reason: 'protected_path', protectedPath: true, mode: 'ask' });
    const wire = JSON.stringify(queue.pending());
    expect(wire).not.toContain('"resolved"');
    expect(wire).not.toContain('0000');
    queue.decide(pending?.id ?? '', { outcome: 'reject' });
    await decision;
  });

  it('withdraws an approval whose call ends: shown as withdrawn, and deciding it does nothing', async () => {
    const queue = createApprovalQueue();
    const changes: ApprovalChange[] = [];
    queue.subscribe((change) => changes.push(change));
    const controller = new AbortController();
    const waiting = queue.confirm(request(0), controller.signal);
    await settle();
    const [approval] = queue.pending();
    controller.abort(new Error('the client went away'));
    await expect(waiting).rejects.toThrow('the client went away');
    expect(queue.pending()).toEqual([]);
    expect(changes.at(-1)).toMatchObject({ type: 'resolved', id: approval?.id, callId: 'call-0', toolName: 'write_file', outcome: 'withdrawn' });
    expect(queue.closed()).toEqual([expect.objectContaining({ id: approval?.id, outcome: 'withdrawn' })]);
    expect(queue.decide(approval?.id ?? '', { outcome: 'approve' })).toBe(false);
    expect(changes.filter((change) => change.type === 'resolved')).toHaveLength(1);
  });

  it('expires an approval nobody decides as a rejection that says so; deciding it later does nothing', async () => {
    const queue = createApprovalQueue({ timeoutMs: 30 });
    const changes: ApprovalChange[] = [];
    queue.subscribe((change) => changes.push(change));
    const controller = new AbortController();
    const decision = await queue.confirm(request(0), controller.signal);
    expect(decision).toMatchObject({ outcome: 'reject', by: 'approval-queue' });
    expect(decision.outcome === 'reject' && decision.reason).toContain(APPROVAL_EXPIRED_REASON);
    const [closed] = queue.closed();
    expect(closed).toMatchObject({ callId: 'call-0', outcome: 'expired' });
    expect(queue.decide(closed?.id ?? '', { outcome: 'approve' })).toBe(false);
    // The call ending afterwards changes nothing: it is closed once.
    controller.abort();
    expect(changes.filter((change) => change.type === 'resolved').map((change) => change.type === 'resolved' && change.outcome)).toEqual(['expired']);
  });

  it('a decision stops the expiry and the withdrawal; the closed list keeps the most recent 50', async () => {
    const queue = createApprovalQueue({ timeoutMs: 30 });
    const controller = new AbortController();
    const waiting = queue.confirm(request(0), controller.signal);
    await settle();
    expect(queue.decide(queue.pending()[0]?.id ?? '', { outcome: 'approve' })).toBe(true);
    await expect(waiting).resolves.toEqual({ outcome: 'approve' });
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(queue.closed().map((entry) => entry.outcome)).toEqual(['approve']);
    for (let index = 1; index <= 60; index += 1) {
      const next = queue.confirm(request(index));
      await settle();
      queue.decide(queue.pending()[0]?.id ?? '', { outcome: 'reject' });
      await next;
    }
    expect(queue.closed()).toHaveLength(50);
    expect(queue.closed().at(-1)?.callId).toBe('call-60');
  });

  it('refuses a timeout that is not a positive number of milliseconds a timer can wait', () => {
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31]) {
      expect(() => createApprovalQueue({ timeoutMs })).toThrow(/timeoutMs/);
    }
  });

  it('refuses a cap that is not a positive integer', () => {
    for (const maxPending of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createApprovalQueue({ maxPending })).toThrow(/maxPending/);
    }
  });
});
