import { describe, expect, it } from 'vitest';
import type { ToolHooks } from '../hooks/hook-types.js';
import type { DispatchContext, ToolCall } from './dispatch-types.js';
import { addTool, grantAll, harness, recordingPolicy, runCommandTool, writeFileTool } from './__fixtures__/pipeline-fixtures.js';

const grantedTools = grantAll(addTool, runCommandTool, writeFileTool);

interface Case {
  readonly label: string;
  readonly call: ToolCall;
  readonly context?: DispatchContext;
  readonly hooks?: Partial<ToolHooks>;
  readonly code: string;
  readonly reason?: string;
}

const denyRunCommand = recordingPolicy({
  identity: (input) => (input.tool.name === 'run_command' ? { kind: 'deny', reason: 'rule_denied', matched: [] } : { kind: 'allow', matched: [] }),
  arguments: (input) => ((input.args as { a?: number }).a === 13 ? { kind: 'deny', reason: 'rule_denied', matched: [] } : { kind: 'allow', matched: [] }),
});

/** One refusal from each decision stage, 1 to 8. */
const refusals: readonly Case[] = [
  { label: 'stage 1: provider-executed', call: { callId: 'c', name: 'add', arguments: {}, providerExecuted: true }, code: 'POLICY_DENIED', reason: 'provider_executed' },
  { label: 'stage 2: unknown name', call: { callId: 'c', name: 'ad', arguments: {} }, code: 'UNKNOWN_TOOL' },
  { label: 'stage 3: not granted', call: { callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, context: { grantedTools: [] }, code: 'POLICY_DENIED', reason: 'not_granted' },
  { label: 'stage 4: identity deny', call: { callId: 'c', name: 'run_command', arguments: 'not json' }, code: 'POLICY_DENIED', reason: 'rule_denied' },
  { label: 'stage 5: arguments that are not JSON', call: { callId: 'c', name: 'add', arguments: '{' }, code: 'ARGS_INVALID' },
  { label: 'stage 6: invalid arguments', call: { callId: 'c', name: 'add', arguments: { a: 'x', b: 2 } }, code: 'ARGS_INVALID' },
  { label: 'stage 7: argument deny', call: { callId: 'c', name: 'add', arguments: { a: 13, b: 2 } }, code: 'POLICY_DENIED', reason: 'rule_denied' },
  {
    label: 'stage 8: a guard',
    call: { callId: 'c', name: 'add', arguments: { a: 1, b: 2 } },
    hooks: { guards: [() => 'not today'] },
    code: 'POLICY_DENIED',
    reason: 'guard_denied',
  },
];

describe('the decision runner: dispatch and prepare judge a call by the same stages 1–8', () => {
  it.each(refusals)('$label refuses both, with the same error, and runs nothing', async ({ call, context, hooks, code, reason }) => {
    const { registry, host } = harness([addTool, runCommandTool], { policy: denyRunCommand, ...(hooks === undefined ? {} : { hooks }) });
    const settings = context ?? { grantedTools };
    const plan = await registry.prepare(call, settings);
    const outcome = await registry.dispatch(call, settings);
    expect(plan.status).toBe('denied');
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(plan.error?.code).toBe(code);
    expect(outcome.error.code).toBe(code);
    if (reason !== undefined) {
      expect(plan.error).toMatchObject({ reason });
      expect(outcome.error).toMatchObject({ reason });
    }
    expect(plan.error?.message).toBe(outcome.error.message);
    expect(host.calls).toEqual([]);
  });

  it('a call every stage admits is ready in a plan and runs in a dispatch', async () => {
    const { registry } = harness([addTool], { hooks: { guards: [() => undefined] } });
    const call = { callId: 'c', name: 'add', arguments: { a: 2, b: 3 } };
    expect((await registry.prepare(call, { grantedTools })).status).toBe('ready');
    const outcome = await registry.dispatch(call, { grantedTools });
    expect(outcome.ok && outcome.value).toBe(5);
  });

  it('a hook that asks: the plan needs an approval, and the dispatch asks the approver', async () => {
    const hooks = { preExecute: [() => ({ kind: 'ask' as const, reason: 'unusual' })] };
    const { registry } = harness([addTool], { hooks });
    const call = { callId: 'c', name: 'add', arguments: { a: 2, b: 3 } };
    const plan = await registry.prepare(call, { grantedTools, approval: {} });
    expect(plan).toMatchObject({ status: 'approval_required', reason: 'asked by a hook' });
    const asked: string[] = [];
    const outcome = await registry.dispatch(call, { grantedTools, approval: { confirm: (request) => (asked.push(request.toolName), Promise.resolve({ outcome: 'reject' as const })) } });
    expect(asked).toEqual(['add']);
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('DENIED_BY_USER');
  });

  it('an ask with no approval regime is denied by both: no one could answer it', async () => {
    const hooks = { preExecute: [() => ({ kind: 'ask' as const })] };
    const { registry } = harness([addTool], { hooks });
    const call = { callId: 'c', name: 'add', arguments: { a: 2, b: 3 } };
    expect(await registry.prepare(call, { grantedTools })).toMatchObject({ status: 'denied', reason: 'an ask needs an approval regime' });
    const outcome = await registry.dispatch(call, { grantedTools });
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('POLICY_DENIED');
    if (!outcome.ok) expect(outcome.error).toMatchObject({ reason: 'approval_unavailable' });
  });
});
