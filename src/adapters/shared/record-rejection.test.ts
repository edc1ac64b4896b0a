import { describe, expect, it } from 'vitest';
import { createNotesFixture, NOTES_GRANT } from '../__fixtures__/notes-registry.js';
import { recordRejection } from './record-rejection.js';

describe('recordRejection', () => {
  it('records a human rejection as a DENIED_BY_USER receipt and executes nothing', async () => {
    const { registry, host, receipts } = createNotesFixture();
    const outcome = await recordRejection({ registry, context: { grantedTools: NOTES_GRANT }, call: { callId: 'r1', name: 'write_note', arguments: { path: 'notes/a.txt', text: 'x' } }, reason: 'no' });
    expect(outcome?.ok).toBe(false);
    expect(!outcome?.ok && outcome?.error.code).toBe('DENIED_BY_USER');
    expect(receipts.map((receipt) => [receipt.callId, receipt.status, receipt.approval.outcome])).toEqual([['r1', 'denied', 'reject']]);
    expect(host.calls).toHaveLength(0);
  });

  it('never runs a call that no longer needs approval, even one the application pre-approved', async () => {
    const { registry, host, receipts } = createNotesFixture();
    const read = await recordRejection({ registry, context: { grantedTools: NOTES_GRANT }, call: { callId: 'r2', name: 'read_note', arguments: { path: 'notes/todo.txt' } } });
    expect(read).toBeUndefined();
    const write = { callId: 'r3', name: 'write_note', arguments: { path: 'notes/a.txt', text: 'x' } };
    const plan = await registry.prepare(write, { grantedTools: NOTES_GRANT, approval: {} });
    const preApproved = await recordRejection({ registry, context: { grantedTools: NOTES_GRANT, approval: { approvedActionDigests: [plan.actionDigest ?? ''] } }, call: write });
    expect(preApproved?.ok).toBe(false);
    expect(host.calls).toHaveLength(0);
    expect(receipts.map((receipt) => receipt.code)).toEqual(['DENIED_BY_USER']);
  });
});
