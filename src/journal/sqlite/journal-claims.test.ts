import { describe, expect, it } from 'vitest';
import { openClaimOfAction, unresolvedClaimError, type ClaimRow } from './journal-claims.js';
import type { OpenClaim } from './open-claims.js';

const row = (body: unknown): ClaimRow => ({ seq: 1, at: 0, claim_id: 'c1', key: 'digest:call', state: 'open', body: JSON.stringify(body) });

describe('journal claims', () => {
  it('names the claim and when it started, never its arguments', () => {
    const error = unresolvedClaimError('write_file', row({ callId: 'call', tool: 'write_file', startedAt: 0, arguments: { path: 'secret.txt' } }));
    expect(error.message).toContain('journal claim c1, started 1970-01-01T00:00:00.000Z');
    expect(error.message).not.toContain('secret.txt');
    expect(unresolvedClaimError('write_file', row({ startedAt: 'soon' })).message).toContain('(journal claim c1)');
  });

  it('finds an open claim of the same action that this instance does not hold', () => {
    const open = new Map<string, OpenClaim>([
      ['a', { claim_id: 'a', key: 'digest1:call1' } as OpenClaim],
      ['b', { claim_id: 'b', key: 'digest10:call2' } as OpenClaim],
    ]);
    expect(openClaimOfAction(open, 'digest1', () => false)?.claim_id).toBe('a');
    expect(openClaimOfAction(open, 'digest1', (claim) => claim.claim_id === 'a')).toBeUndefined();
  });
});
