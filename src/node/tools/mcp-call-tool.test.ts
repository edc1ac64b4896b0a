import { describe, expect, it } from 'vitest';
import {
  createConfirm,
  createLivePolicy,
  createPolicy,
  createToolRegistry,
  mcpToolName,
  ToolPolicyError,
  type ApprovalMode,
  type McpCallInput,
  type McpCapability,
  type PolicyRule,
  type ToolApprovalRequest,
} from '../../core/internal.js';
import { createFakeHost } from '../../testing/create-fake-host.js';
import { mcpCallTool } from './mcp-call-tool.js';

const project = (decision: 'allow' | 'ask' | 'deny', rule: string): PolicyRule => ({ rule, decision, source: 'project' });

/** A gateway in miniature: mcp_call over a spy upstream, the live policy, the shipped confirm hook with a spy prompt. */
function setup(rules: readonly PolicyRule[], mode: ApprovalMode) {
  const upstream: McpCallInput[] = [];
  const mcp: McpCapability = {
    call: (input) => {
      upstream.push(input);
      return Promise.resolve({ content: [{ type: 'text', text: `${input.tool} ran` }] });
    },
  };
  const policy = createLivePolicy(createPolicy({ rules, mcpServers: ['up', 'up_x'], mode }));
  const prompts: ToolApprovalRequest[] = [];
  const controller = createConfirm({
    mode,
    policy,
    prompt: (request) => {
      prompts.push(request);
      return Promise.resolve({ outcome: 'approve' });
    },
  });
  const registry = createToolRegistry({ tools: [mcpCallTool], host: { ...createFakeHost(), mcp }, policy, hooks: { around: [policy.guardStart] } });
  let id = 0;
  const call = (args: Record<string, unknown>) =>
    registry.dispatch({ callId: `c${(id += 1)}`, name: 'mcp_call', arguments: args }, { grantedTools: ['mcp_call'], approval: { confirm: controller.confirm } });
  return { policy, registry, call, upstream, prompts };
}

const allowUp = project('allow', 'mcp_call(server:up)');

function expectRuleDenied(outcome: Awaited<ReturnType<ReturnType<typeof setup>['call']>>): void {
  expect(outcome.ok).toBe(false);
  if (outcome.ok) return;
  expect(outcome.error.code).toBe('POLICY_DENIED');
  expect(outcome.error).toBeInstanceOf(ToolPolicyError);
  expect((outcome.error as ToolPolicyError).reason).toBe('rule_denied');
}

describe('mcp_call answers to the rules of the tool it calls', () => {
  it.each(['auto', 'ask', 'accept-edits'] as const)('a deny on the target refuses mcp_call in %s mode, before anything is called and without an approval', async (mode) => {
    const { call, upstream, prompts } = setup([allowUp, project('deny', 'mcp__up__echo')], mode);
    const outcome = await call({ server: 'up', tool: 'echo', arguments: { text: 'denied tool ran' } });
    expectRuleDenied(outcome);
    expect(!outcome.ok && outcome.error.message).toContain('mcp_up_echo');
    expect(upstream).toEqual([]);
    expect(prompts).toEqual([]);
  });

  it('an allowed target still runs: auto mode approves what mcp_call(server:up) allows, ask mode asks', async () => {
    const auto = setup([allowUp, project('deny', 'mcp__up__echo')], 'auto');
    const ran = await auto.call({ server: 'up', tool: 'other', arguments: { a: 1 } });
    expect(ran.ok).toBe(true);
    expect(auto.upstream).toEqual([{ server: 'up', tool: 'other', arguments: { a: 1 } }]);
    expect(auto.prompts).toEqual([]);

    const ask = setup([allowUp, project('deny', 'mcp__up__echo')], 'ask');
    expect((await ask.call({ server: 'up', tool: 'other' })).ok).toBe(true);
    expect(ask.prompts.map((request) => request.toolName)).toEqual(['mcp_call']);
    expect(ask.upstream).toHaveLength(1);
  });

  it.each([
    ['ECHO'],
    ['Echo'],
    ['ｅｃｈｏ'], // full-width: NFKC folds it to "echo", as the discovered tool's name does
    ['ＥＣＨＯ'],
  ])('an upstream tool named %j that the gateway names mcp_up_echo cannot dodge the deny', async (tool) => {
    expect(mcpToolName('up', tool)).toBe('mcp_up_echo');
    const { call, upstream, prompts } = setup([allowUp, project('deny', 'mcp__up__echo')], 'auto');
    expectRuleDenied(await call({ server: 'up', tool }));
    expect(upstream).toEqual([]);
    expect(prompts).toEqual([]);
  });

  const targetDenies: [string, PolicyRule][] = [
    ['a server-wide deny', project('deny', 'mcp__up')],
    ['a deny written with odd casing', project('deny', 'mcp__up__Echo')],
    ['a deny in toolgate naming', { tool: 'mcp_up_echo', decision: 'deny', source: 'project' }],
    ['a wildcard deny', { tool: 'mcp_up_*', decision: 'deny', source: 'project' }],
    ['a deny matched on the server', { tool: 'mcp_up_echo', decision: 'deny', source: 'project', match: { server: 'up' } }],
    ['a deny on the target arguments', { tool: 'mcp_up_echo', decision: 'deny', source: 'project', match: { argsPattern: 'rm -rf' } }],
    ['a managed deny', { rule: 'mcp__up__echo', decision: 'deny', source: 'managed' }],
  ];
  it.each(targetDenies)('%s on the target refuses mcp_call', async (_label, rule) => {
    const { call, upstream, prompts } = setup([allowUp, rule], 'ask');
    expectRuleDenied(await call({ server: 'up', tool: 'echo', arguments: { text: 'rm -rf /' } }));
    expect(upstream).toEqual([]);
    expect(prompts).toEqual([]);
  });

  it('a deny on the target outranks an allow on mcp_call, whatever the rule forms', async () => {
    const { call, upstream } = setup([project('allow', 'mcp_call'), { tool: 'mcp_call', decision: 'allow', source: 'project', priority: 100 }, project('deny', 'mcp__up__echo')], 'auto');
    expectRuleDenied(await call({ server: 'up', tool: 'echo' }));
    expect(upstream).toEqual([]);
  });

  it('a server whose name folds to another is refused by the floor, never by a missing rule', async () => {
    const { call, upstream } = setup([project('allow', 'mcp_call'), project('deny', 'mcp__up__echo')], 'auto');
    for (const server of ['UP', 'Up', 'ｕｐ', 'up ']) {
      const outcome = await call({ server, tool: 'echo' });
      expect(outcome.ok, server).toBe(false);
      if (!outcome.ok) expect(outcome.error.code).toBe('POLICY_DENIED');
    }
    expect(upstream).toEqual([]);
  });

  it('an argsPattern deny on the target sees the target arguments only, and leaves other calls alone', async () => {
    const { call, upstream } = setup([allowUp, { tool: 'mcp_up_echo', decision: 'deny', source: 'project', match: { argsPattern: 'secret' } }], 'auto');
    expectRuleDenied(await call({ server: 'up', tool: 'echo', arguments: { text: 'the secret' } }));
    expect((await call({ server: 'up', tool: 'echo', arguments: { text: 'hello' } })).ok).toBe(true);
    expect(upstream.map((input) => input.arguments)).toEqual([{ text: 'hello' }]);
  });

  it('an ask rule on the target makes mcp_call ask, even in auto mode where mcp_call is allowed', async () => {
    const { call, prompts, upstream } = setup([allowUp, project('ask', 'mcp__up__echo')], 'auto');
    expect((await call({ server: 'up', tool: 'echo' })).ok).toBe(true);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]?.decision).toMatchObject({ kind: 'ask', reason: 'rule' });
    expect(upstream).toHaveLength(1);
  });

  it('an allow on the target does not approve mcp_call: only rules on mcp_call itself can', async () => {
    const { call, prompts } = setup([project('allow', 'mcp__up__echo')], 'auto');
    expect((await call({ server: 'up', tool: 'echo' })).ok).toBe(true);
    expect(prompts.map((request) => request.toolName)).toEqual(['mcp_call']);
  });

  it('prepare and explain agree with dispatch', async () => {
    const { policy, registry } = setup([allowUp, project('deny', 'mcp__up__echo')], 'auto');
    const plan = await registry.prepare({ callId: 'p', name: 'mcp_call', arguments: { server: 'up', tool: 'echo' } }, { grantedTools: ['mcp_call'] });
    expect(plan.status).not.toBe('ready');
    const view = registry.list().find((info) => info.key === 'mcp_call')?.policyView;
    expect(view).toBeDefined();
    for (const tool of [view ?? 'mcp_call', 'mcp_call']) {
      const denied = policy.explain({ tool, target: { server: 'up' }, args: { server: 'up', tool: 'Echo' } });
      expect(denied.decision).toMatchObject({ kind: 'deny', reason: 'rule_denied' });
      expect(denied.rules.find((rule) => rule.winner)?.rule).toBe('mcp__up__echo');
      expect(denied.notes.join(' ')).toContain('mcp_call calls mcp_up_echo');
      const allowed = policy.explain({ tool, target: { server: 'up' }, args: { server: 'up', tool: 'other' } });
      expect(allowed.decision.kind).toBe('allow');
    }
  });

  it('a policy narrowed while an approval is pending refuses the call the new snapshot denies through its target', async () => {
    const rules = [project('allow', 'mcp_call')];
    const policy = createLivePolicy(createPolicy({ rules, mcpServers: ['up'], mode: 'ask' }));
    const upstream: McpCallInput[] = [];
    const mcp: McpCapability = { call: (input) => (upstream.push(input), Promise.resolve({ content: [] })) };
    const controller = createConfirm({
      mode: 'ask',
      policy,
      prompt: () => {
        policy.replace(createPolicy({ rules: [...rules, project('deny', 'mcp__up__echo')], mcpServers: ['up'], mode: 'ask' }));
        return Promise.resolve({ outcome: 'approve' });
      },
    });
    const registry = createToolRegistry({ tools: [mcpCallTool], host: { ...createFakeHost(), mcp }, policy, hooks: { around: [policy.guardStart] } });
    const outcome = await registry.dispatch({ callId: 'n', name: 'mcp_call', arguments: { server: 'up', tool: 'echo' } }, { grantedTools: ['mcp_call'], approval: { confirm: controller.confirm } });
    expect(outcome.ok).toBe(false);
    expect(upstream).toEqual([]);
  });
});

describe('the target name', () => {
  it('is the one MCP naming, so a long tool name is clipped as the discovered tool and the rule are', async () => {
    const long = 'a'.repeat(100);
    const { call, upstream } = setup([allowUp, project('deny', `mcp__up__${long}`)], 'auto');
    expect(mcpToolName('up', long)).toHaveLength(64);
    expectRuleDenied(await call({ server: 'up', tool: long }));
    expect(upstream).toEqual([]);
  });
});
