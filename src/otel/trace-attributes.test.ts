import { describe, expect, it } from 'vitest';
import type { ToolgateEventMap } from '../core/internal.js';
import { approvalAttributes, policyDecisionAttributes, receiptAttributes, servedCallAttributes } from './trace-attributes.js';

type Receipt = ToolgateEventMap['tool-result']['receipt'];
type Decided = ToolgateEventMap['policy-decided'];

const receipt = (extra: Partial<Record<keyof Receipt, unknown>> = {}): Receipt =>
  ({
    tool: 'gh.create_issue',
    invocationId: 'inv-1',
    status: 'ok',
    code: 'OK',
    policy: { decision: 'allow', rules: [] },
    approval: { outcome: 'not-required' },
    effect: 'none',
    risk: 'low',
    arguments: { token: 'never-copied' },
    ...extra,
  }) as unknown as Receipt;

const decided = (decision: Decided['decision'], stage: Decided['stage']): Decided => ({ callId: 'c1', stage, decision, at: 1 }) as unknown as Decided;

describe('receiptAttributes', () => {
  it('names a local tool a function and leaves out what the receipt does not hold', () => {
    const attributes = receiptAttributes(receipt());
    expect(attributes).toEqual({
      'gen_ai.tool.type': 'function',
      'toolgate.tool': 'gh.create_issue',
      'toolgate.invocation.id': 'inv-1',
      'toolgate.status': 'ok',
      'toolgate.code': 'OK',
      'toolgate.policy.decision': 'allow',
      'toolgate.approval.outcome': 'not-required',
      'toolgate.effect': 'none',
      'toolgate.risk': 'low',
    });
    expect(JSON.stringify(attributes)).not.toContain('never-copied');
  });

  it('names an upstream tool an extension, with its server, the agent and how it was approved', () => {
    const attributes = receiptAttributes(
      receipt({ agent: 'planner', target: { mcp: { server: 'gh', tool: 'create_issue' } }, policy: { decision: 'ask', version: 4, rules: [] }, approval: { outcome: 'approved', how: 'console', scope: 'once' } }),
    );
    expect(attributes).toMatchObject({
      'gen_ai.tool.type': 'extension',
      'toolgate.upstream.server': 'gh',
      'gen_ai.agent.name': 'planner',
      'toolgate.policy.version': 4,
      'toolgate.approval.how': 'console',
      'toolgate.approval.scope': 'once',
    });
  });
});

describe('policyDecisionAttributes', () => {
  const matched = [{ id: 'project#1', source: 'project', decision: 'ask' }] as const;

  it('carries the rules matched and a deny reason', () => {
    expect(policyDecisionAttributes(decided({ kind: 'deny', reason: 'rule_denied', matched: [...matched] }, 'arguments'))).toEqual({
      'toolgate.policy.stage': 'arguments',
      'toolgate.policy.decision': 'deny',
      'toolgate.policy.rule_ids': ['project#1'],
      'toolgate.policy.rule_sources': ['project'],
      'toolgate.policy.reason': 'rule_denied',
    });
  });

  it("keeps a policy's ask reason and leaves out a hook's free text", () => {
    expect(policyDecisionAttributes(decided({ kind: 'ask', reason: 'risk', matched: [] }, 'arguments'))['toolgate.policy.reason']).toBe('risk');
    expect(policyDecisionAttributes(decided({ kind: 'ask', reason: 'call me at 555-0100', matched: [] }, 'hooks'))).not.toHaveProperty('toolgate.policy.reason');
  });
});

describe('approvalAttributes and servedCallAttributes', () => {
  it('name the approval by its action digest', () => {
    const event = { callId: 'c1', toolName: 'send', actionDigest: 'abc', action: 'network' } as unknown as ToolgateEventMap['approval-requested'];
    expect(approvalAttributes(event)).toEqual({ 'gen_ai.tool.name': 'send', 'gen_ai.tool.call.id': 'c1', 'toolgate.approval.action_digest': 'abc', 'toolgate.approval.action': 'network' });
  });

  it('give a served call its MCP method, request id, transport and session', () => {
    expect(servedCallAttributes({ callId: 'c1', tool: 'echo', requestId: 7, sessionId: 's1', transport: 'http' })).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'c1',
      'jsonrpc.request.id': '7',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.session.id': 's1',
    });
    expect(servedCallAttributes({ callId: 'c2', tool: 'echo', requestId: 'r', sessionId: undefined, transport: 'stdio' })).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'c2',
      'jsonrpc.request.id': 'r',
      'network.transport': 'pipe',
    });
  });
});
