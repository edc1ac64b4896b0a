import { createNoopMeter, type Attributes, type Counter, type Histogram, type Meter } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { createToolRegistry, ToolPolicyError, type ToolDefinition, type ToolPolicy } from '../core/internal.js';
import { createScriptedApprover } from '../testing/index.js';
import { instrumentRegistry } from './instrument-registry.js';

/** A Meter that keeps what it is given (no OpenTelemetry SDK is installed here). */
function recordingMeter(): { meter: Meter; samples: { name: string; value: number; attributes: Attributes }[] } {
  const samples: { name: string; value: number; attributes: Attributes }[] = [];
  const meter = Object.create(createNoopMeter()) as Meter & Record<string, unknown>;
  const counter = (name: string): Counter => ({ add: (value: number, attributes: Attributes = {}) => void samples.push({ name, value, attributes }) });
  const histogram = (name: string): Histogram => ({ record: (value: number, attributes: Attributes = {}) => void samples.push({ name, value, attributes }) });
  meter.createCounter = counter;
  meter.createHistogram = histogram;
  return { meter, samples };
}

type PathArgs = { path: string };
const input = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } as const;
const tools: ToolDefinition<PathArgs>[] = [
  { name: 'save', description: 'Save.', input, policy: { fsWrite: true, fsScoped: true }, journal: 'none', policyTarget: (args) => ({ path: args.path }), dispatch: () => 'saved' },
  { name: 'boom', description: 'Fails.', input, dispatch: () => { throw new Error('kaput'); } },
  { name: 'jailed', description: 'Refused by the host.', input, dispatch: () => { throw new ToolPolicyError('jailed', 'protected_path'); } },
];
const policy: ToolPolicy = {
  version: 1,
  decideIdentity: () => ({ kind: 'allow', matched: [] }),
  decideArguments: ({ target }) => (target?.path?.startsWith('/') === true ? { kind: 'deny', reason: 'scope_denied', matched: [] } : { kind: 'allow', matched: [] }),
};

describe('instrumentRegistry', () => {
  it('counts invocations, failures by code, denials, approvals by outcome, escape attempts, and records durations', async () => {
    const registry = createToolRegistry({ tools, policy });
    const { meter, samples } = recordingMeter();
    const detach = instrumentRegistry(registry, { meter });
    const approval = createScriptedApprover('approve', 'reject');
    const context = { grantedTools: ['save', 'boom', 'jailed'], approval };
    await registry.dispatch({ callId: '1', name: 'save', arguments: { path: 'a.txt' } }, context);
    await registry.dispatch({ callId: '2', name: 'save', arguments: { path: 'b.txt' } }, context);
    await registry.dispatch({ callId: '3', name: 'save', arguments: { path: '/etc/passwd' } }, context);
    await registry.dispatch({ callId: '4', name: 'boom', arguments: { path: 'x' } }, context);
    await registry.dispatch({ callId: '5', name: 'jailed', arguments: { path: 'x' } }, context);
    const count = (name: string, match: Attributes = {}) =>
      samples.filter((sample) => sample.name === name && Object.entries(match).every(([key, value]) => sample.attributes[key] === value)).reduce((sum, sample) => sum + sample.value, 0);
    expect(count('toolgate.tool.invocations')).toBe(5);
    expect(count('toolgate.tool.failures', { 'toolgate.code': 'DENIED_BY_USER' })).toBe(1);
    expect(count('toolgate.tool.failures', { 'toolgate.code': 'POLICY_DENIED' })).toBe(2);
    expect(count('toolgate.tool.failures', { 'toolgate.code': 'EXECUTION_FAILED' })).toBe(1);
    expect(count('toolgate.approvals', { 'toolgate.outcome': 'approve' })).toBe(1);
    expect(count('toolgate.approvals', { 'toolgate.outcome': 'reject' })).toBe(1);
    expect(count('toolgate.policy.denials', { 'toolgate.reason': 'scope_denied', 'toolgate.stage': 'arguments' })).toBe(1);
    expect(count('toolgate.policy.denials', { 'toolgate.reason': 'protected_path', 'toolgate.stage': 'host' })).toBe(1);
    expect(count('toolgate.escape_attempts')).toBe(2);
    expect(samples.filter((sample) => sample.name === 'toolgate.tool.duration')).toHaveLength(5);
    // No argument value ever becomes an attribute.
    expect(JSON.stringify(samples)).not.toContain('passwd');
    detach();
    await registry.dispatch({ callId: '6', name: 'boom', arguments: { path: 'x' } }, context);
    expect(count('toolgate.tool.invocations')).toBe(5);
  });

  it('is a no-op without an OpenTelemetry SDK', async () => {
    const registry = createToolRegistry({ tools, policy });
    const detach = instrumentRegistry(registry);
    const outcome = await registry.dispatch({ callId: '1', name: 'boom', arguments: { path: 'x' } }, { grantedTools: ['boom'] });
    expect(outcome.ok).toBe(false);
    detach();
  });
});
