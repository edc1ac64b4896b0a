import { describe, expect, it } from 'vitest';
import { buildPolicyView } from './build-policy-view.js';

const view = (extra: Record<string, unknown>) => buildPolicyView({ name: 't', description: 'd', input: {}, dispatch: () => 'ok', ...extra }, 't');

describe('buildPolicyView', () => {
  it('derives effect, risk and read-only from the declared policy facts', () => {
    expect(view({}).policyView).toMatchObject({ effect: 'read', risk: 'low', readOnly: true, source: 'plugin' });
    expect(view({ policy: { fsWrite: true } })).toMatchObject({ actionClass: 'fs_write', policyView: { effect: 'write', risk: 'medium', readOnly: false } });
    expect(view({ policy: { spawnsProcess: true } })).toMatchObject({ actionClass: undefined, policyView: { effect: 'execute', risk: 'high' } });
  });

  it('governs egress before a write, and a process only when its command is model-controlled', () => {
    expect(view({ policy: { egress: 'mcp', fsWrite: true } }).actionClass).toBe('egress');
    expect(view({ policy: { spawnsProcess: true }, policyTarget: () => ({}) }).actionClass).toBe('process');
  });

  it('keeps declared facts over derived ones, frozen', () => {
    const built = view({ effect: 'write', risk: 'critical', facts: { readOnly: false }, permissions: ['repo'] });
    expect(built.policyView).toMatchObject({ effect: 'write', risk: 'critical', readOnly: false, permissions: ['repo'] });
    expect(Object.isFrozen(built.policyView.policy)).toBe(true);
  });
});
