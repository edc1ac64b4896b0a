import { describe, expect, it } from 'vitest';
import { checkCallStart } from './check-call-start.js';
import { createPolicy } from './create-policy.js';
import type { Decided } from './pending-decisions.js';
import type { PolicyDecision } from './policy-types.js';
import { toolView } from './__fixtures__/tool-views.js';

const wide = createPolicy({ version: 1, allowedDomains: ['api.github.com', 'example.com'] });
const narrow = createPolicy({ version: 2, allowedDomains: ['example.com'] });
const asking = createPolicy({ version: 3, allowedDomains: ['api.github.com'], rules: [{ rule: 'WebFetch(domain:api.github.com)', decision: 'ask', source: 'project' }] });

const fetchOf = (url: string, decision: PolicyDecision, version: number): Decided => ({
  input: { tool: toolView('http'), agent: undefined, args: { url }, target: { url }, gateApproved: false },
  decision,
  version,
});

describe('checkCallStart', () => {
  it('starts a call decided on the current snapshot without re-checking it', () => {
    const denied = fetchOf('https://api.github.com/x', { kind: 'deny', reason: 'rule_denied', matched: [] }, 2);
    expect(checkCallStart(denied, narrow, 1)).toEqual({ kind: 'start' });
  });

  it('refuses a call an older snapshot allowed when the current one denies it, with its reason', () => {
    const decided = fetchOf('https://api.github.com/x', { kind: 'allow', matched: [] }, 1);
    expect(checkCallStart(decided, narrow, 1)).toMatchObject({ kind: 'refuse', reason: 'domain_not_allowed' });
    expect(checkCallStart(fetchOf('https://example.com/x', { kind: 'allow', matched: [] }, 1), narrow, 1)).toEqual({ kind: 'start' });
  });

  it('refuses an allow that the current snapshot narrowed to an ask, and starts an ask that stays one', () => {
    expect(checkCallStart(fetchOf('https://api.github.com/x', { kind: 'allow', matched: [] }, 1), asking, 1)).toEqual({ kind: 'refuse', reason: 'policy_changed', ruleId: undefined });
    expect(checkCallStart(fetchOf('https://api.github.com/x', { kind: 'ask', matched: [] }, 1), asking, 1)).toEqual({ kind: 'start' });
  });

  it('refuses an unknown call only once the policy was replaced', () => {
    expect(checkCallStart(undefined, wide, 1)).toEqual({ kind: 'start' });
    expect(checkCallStart(undefined, narrow, 1)).toEqual({ kind: 'refuse', reason: 'policy_changed', ruleId: undefined });
  });
});
