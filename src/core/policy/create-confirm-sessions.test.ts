import { describe, expect, test, vi } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { createFakeHost } from '../../testing/create-fake-host.js';
import type { ApprovalSession, ToolApprovalDecision } from './approval-types.js';
import { createConfirm, type PromptHook } from './create-confirm.js';
import { createLivePolicy } from './create-live-policy.js';
import { createPolicy } from './create-policy.js';
import type { PolicyRule } from './rule-types.js';
import { governedTools } from './__fixtures__/governed-tools.js';

// Remembered approvals are the session's that asked: `approval.session` on the dispatch context names it, and a
// session approval given for one session never stands in for a call of another, or of a caller that names none.

const grantedTools = governedTools.map((tool) => tool.name);
let counter = 0;
const A: ApprovalSession = { id: 'session-a', client: { name: 'client-a', version: '1.0.0' } };
const B: ApprovalSession = { id: 'session-b', client: { name: 'client-b', version: '2.0.0' } };

function setup(answer: ToolApprovalDecision, rules: PolicyRule[] = []) {
  const policy = createLivePolicy(createPolicy({ allowedCommands: ['git status'], allowedDomains: ['api.github.com'], scope: { tier: 'workspace-write', roots: ['/work/repo'] }, rules }));
  const prompt = vi.fn<PromptHook>(async () => answer);
  const approvals = createConfirm({ mode: 'ask', prompt, policy, remember: { persist: async () => undefined, persisted: (rule) => rule.id.startsWith('remembered:') } });
  const registry = createToolRegistry({ tools: governedTools, host: createFakeHost(), policy });
  const run = (session: ApprovalSession | undefined, [name, args]: readonly [string, object] = ['run_command', { command: ['git', 'status'] }]) =>
    registry.dispatch({ callId: `c${(counter += 1)}`, name, arguments: args }, { grantedTools, approval: { confirm: approvals.confirm, ...(session === undefined ? {} : { session }) } });
  return { prompt, approvals, run };
}

describe('remembered approvals, by session', () => {
  test('a session approval stands in for its own session only: another session, and a caller naming none, are asked', async () => {
    const { prompt, approvals, run } = setup({ outcome: 'approve', scope: 'session' });
    expect((await run(A)).ok).toBe(true);
    expect((await run(A)).ok).toBe(true);
    expect(prompt).toHaveBeenCalledTimes(1);
    await run(B);
    expect(prompt).toHaveBeenCalledTimes(2);
    await run(undefined);
    expect(prompt).toHaveBeenCalledTimes(3);
    expect(approvals.remembered().map((entry) => entry.session?.id)).toEqual(['session-a', 'session-b', undefined]);
  });

  test('the prompt is told which session asked, with what its client declared', async () => {
    const { prompt, run } = setup({ outcome: 'approve', scope: 'once' });
    await run(B);
    expect(prompt.mock.calls[0]?.[0].session).toEqual(B);
    await run(undefined);
    expect(prompt.mock.calls[1]?.[0]).not.toHaveProperty('session');
  });

  test('without sessions, as an in-process registry calls, a session approval stands in for every later call', async () => {
    const { prompt, run } = setup({ outcome: 'approve', scope: 'session' });
    await run(undefined);
    await run(undefined);
    expect(prompt).toHaveBeenCalledTimes(1);
  });

  test('forgetSession drops that session\'s approvals and keeps the others\'', async () => {
    const { prompt, approvals, run } = setup({ outcome: 'approve', scope: 'session' });
    await run(A);
    await run(B);
    approvals.forgetSession('session-a');
    expect(approvals.remembered().map((entry) => entry.session?.id)).toEqual(['session-b']);
    await run(A);
    await run(B);
    expect(prompt).toHaveBeenCalledTimes(3);
    // A session id nobody used forgets nothing.
    approvals.forgetSession('session-c');
    expect(approvals.remembered()).toHaveLength(2);
  });

  test('an always approval that cannot be written as a rule lasts as long as its session', async () => {
    const { prompt, approvals, run } = setup({ outcome: 'approve', scope: 'always' });
    // An HTTP request is remembered, never persisted: no rule says exactly what it sends.
    const request = ['http_request', { url: 'https://api.github.com/a' }] as const;
    await run(A, request);
    await run(A, request);
    expect(prompt).toHaveBeenCalledTimes(1);
    await run(B, request);
    expect(prompt).toHaveBeenCalledTimes(2);
    approvals.forgetSession('session-a');
    await run(A, request);
    expect(prompt).toHaveBeenCalledTimes(3);
  });

  test('a rule an earlier Always allow wrote is the operator\'s: it approves every session\'s call without asking', async () => {
    const { prompt, run } = setup({ outcome: 'reject' }, [{ id: 'remembered:1', tool: 'run_command', decision: 'allow', source: 'project', match: { argv: ['git', 'status'], exact: true } }]);
    expect((await run(A)).ok).toBe(true);
    expect((await run(B)).ok).toBe(true);
    expect((await run(undefined)).ok).toBe(true);
    expect(prompt).not.toHaveBeenCalled();
  });

  test('an approval answered after its call was cancelled is not remembered', async () => {
    const controller = new AbortController();
    const prompt = vi.fn<PromptHook>(async () => {
      controller.abort();
      return { outcome: 'approve', scope: 'session' };
    });
    const approvals = createConfirm({ mode: 'ask', prompt });
    await approvals.confirm(await requestOf(A), controller.signal);
    expect(approvals.remembered()).toEqual([]);
  });
});

/** The approval request a governed call of `session` raises, as the prompt gets it. */
async function requestOf(session: ApprovalSession): Promise<Parameters<PromptHook>[0]> {
  const { prompt, run } = setup({ outcome: 'reject' });
  await run(session);
  const request = prompt.mock.calls[0]?.[0];
  if (request === undefined) throw new Error('the call raised no approval');
  return request;
}
