import { describe, expect, it } from 'vitest';
import { callOf, toolView } from './__fixtures__/tool-views.js';
import { createPolicy } from './create-policy.js';
import type { PolicyRule } from './rule-types.js';

const rule = (decision: 'allow' | 'ask' | 'deny', text: string): PolicyRule => ({ rule: text, decision, source: 'project' });
const mcpCall = (tool: string, args: Record<string, unknown> = {}) =>
  callOf('mcp', { server: 'up' }, { tool: toolView('mcp', { name: 'mcp_call', delegatesTo: 'mcp' }), args: { server: 'up', tool, arguments: args } });

describe('createPolicy: mcp_call is decided as the upstream tool it calls, too', () => {
  const policy = createPolicy({ rules: [rule('allow', 'mcp_call(server:up)'), rule('deny', 'mcp__up__delete'), rule('ask', 'mcp__up__write')], mcpServers: ['up'], mode: 'auto' });

  it('a deny on the target refuses, naming the target; decideArguments, recheck and explain agree', () => {
    for (const decision of [policy.decideArguments(mcpCall('Delete')), policy.recheck(mcpCall('delete')), policy.explain({ tool: 'mcp_call', target: { server: 'up' }, args: { server: 'up', tool: 'delete' } }).decision]) {
      expect(decision).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
      expect(decision.kind === 'deny' && decision.detail).toContain('(it calls mcp_up_delete)');
    }
  });

  it('an ask rule on the target asks; any other target is decided on mcp_call rules alone', () => {
    expect(policy.decideArguments(mcpCall('write'))).toMatchObject({ kind: 'ask', reason: 'rule' });
    expect(policy.decideArguments(mcpCall('read'))).toMatchObject({ kind: 'allow' });
  });

  it('leaves every other tool to the rules that name it', () => {
    const plain = createPolicy({ rules: [rule('deny', 'mcp__up__delete')], mcpServers: ['up'] });
    const direct = callOf('mcp', { server: 'up' }, { tool: toolView('mcp', { name: 'mcp_up_delete' }) });
    expect(plain.decideArguments(direct)).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
    expect(plain.decideIdentity({ tool: toolView('mcp', { name: 'mcp_up_read' }), agent: undefined })).toMatchObject({ kind: 'allow' });
  });
});
