import { describe, expect, test } from 'vitest';
import type { RememberedApproval } from '../core/internal.js';
import { rememberedBySession } from './remembered-by-session.js';

const approval = (session: RememberedApproval['session'], value: string): RememberedApproval => ({ session, tool: 'run_command', agent: undefined, kind: 'argv', value, scope: 'session', mode: 'ask' });

describe('rememberedBySession', () => {
  test('groups the approvals per session, each shown by a short id and its client, never the whole id', () => {
    const a = { id: '0f3c2a9e-1b7d-4c55-9e0a-6d2f8b1c3e47', client: { name: 'client-a', version: '1.0.0' } };
    const b = { id: '7c1d0e2f-0000-4c55-9e0a-6d2f8b1c3e47' };
    const grouped = rememberedBySession([approval(a, '["ls"]'), approval(b, '["pwd"]'), approval(a, '["cat","x"]'), approval(undefined, '["id"]')]);
    expect(grouped).toEqual([
      { session: { id: '0f3c2a9e', client: { name: 'client-a', version: '1.0.0' } }, approvals: [expect.objectContaining({ value: '["ls"]' }), expect.objectContaining({ value: '["cat","x"]' })] },
      { session: { id: '7c1d0e2f' }, approvals: [expect.objectContaining({ value: '["pwd"]' })] },
      { approvals: [expect.objectContaining({ value: '["id"]' })] },
    ]);
    expect(JSON.stringify(grouped)).not.toContain('1b7d');
  });
});
