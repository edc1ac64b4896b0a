// The test collects garbage to see what a finished call leaves behind: the engine itself imports nothing of Node.
// eslint-disable-next-line no-restricted-imports
import { setFlagsFromString } from 'node:v8';
// eslint-disable-next-line no-restricted-imports
import { runInNewContext } from 'node:vm';
import { describe, expect, test, vi } from 'vitest';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { createFakeHost } from '../../testing/create-fake-host.js';
import { ConfigurationError, ToolPolicyError } from '../errors/tool-errors.js';
import type { ToolApprovalDecision, ToolApprovalRequest } from './approval-types.js';
import { createConfirm } from './create-confirm.js';
import { createLivePolicy } from './create-live-policy.js';
import { createPolicy } from './create-policy.js';
import type { ArgumentPolicyInput } from './policy-types.js';
import { governedTools } from './__fixtures__/governed-tools.js';
import { toolView } from './__fixtures__/tool-views.js';

const grantedTools = governedTools.map((tool) => tool.name);
let counter = 0;
const call = (name: string, args: unknown) => ({ callId: `n${(counter += 1)}`, name, arguments: args });
const wide = () => createPolicy({ allowedDomains: ['api.github.com', 'example.com'], allowedCommands: ['git status'] });
const narrow = () => createPolicy({ allowedDomains: ['example.com'], allowedCommands: ['git status'] });

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('live narrowing', () => {
  test('a pending approval is re-checked after the prompt: a narrower policy refuses it', async () => {
    const live = createLivePolicy(wide());
    const answer = deferred<ToolApprovalDecision>();
    const prompted = deferred<void>();
    const approvals = createConfirm({ mode: 'ask', policy: live, prompt: () => (prompted.resolve(), answer.promise) });
    const host = createFakeHost();
    const registry = createToolRegistry({ tools: governedTools, host, policy: live });
    const pending = registry.dispatch(call('http_request', { url: 'https://api.github.com/x' }), { grantedTools, approval: { confirm: approvals.confirm } });
    await prompted.promise;
    expect(live.replace(narrow()).ok).toBe(true);
    answer.resolve({ outcome: 'approve' });
    const outcome = await pending;
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.message).toContain('policy changed');
    expect(host.calls).toEqual([]);
  });

  test('a call not yet started is re-checked at its start by guardStart', async () => {
    const live = createLivePolicy(wide());
    const gate = deferred<void>();
    const reached = deferred<void>();
    const host = createFakeHost();
    const registry = createToolRegistry({
      tools: governedTools,
      host,
      policy: live,
      // A slow pre-execute hook holds the call between its policy decision and its start.
      hooks: { preExecute: [async () => (reached.resolve(), await gate.promise, undefined)], around: [live.guardStart] },
    });
    const pending = registry.dispatch(call('http_request', { url: 'https://api.github.com/x' }), { grantedTools });
    await reached.promise;
    live.replace(narrow());
    gate.resolve();
    const outcome = await pending;
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect((outcome.error as ToolPolicyError).reason).toBe('domain_not_allowed');
    expect(host.calls).toEqual([]);
    // Still-allowed calls pass the same guard after the change.
    const allowed = await registry.dispatch(call('http_request', { url: 'https://example.com/x' }), { grantedTools });
    expect(allowed.ok).toBe(true);
  });

  test('a call admitted before the change may finish', async () => {
    const live = createLivePolicy(wide());
    const host = createFakeHost();
    host.script('egress.fetch', { result: { status: 200, headers: {}, body: '', truncated: false, url: '' }, delayMs: 20 });
    const registry = createToolRegistry({ tools: governedTools, host, policy: live, hooks: { around: [live.guardStart] } });
    const running = registry.dispatch(call('http_request', { url: 'https://api.github.com/x' }), { grantedTools });
    await vi.waitFor(() => expect(host.calls).toHaveLength(1));
    live.replace(narrow());
    expect((await running).ok).toBe(true);
  });

  test('new calls decide on the new snapshot and record its version', async () => {
    const live = createLivePolicy(wide());
    const registry = createToolRegistry({ tools: governedTools, host: createFakeHost(), policy: live });
    const versions: unknown[] = [];
    registry.on('policy-decided', (event) => versions.push(event.decision.policyVersion));
    const first = live.version;
    expect((await registry.dispatch(call('http_request', { url: 'https://api.github.com/x' }), { grantedTools })).ok).toBe(true);
    const next = narrow();
    live.replace(next);
    expect((await registry.dispatch(call('http_request', { url: 'https://api.github.com/x' }), { grantedTools })).ok).toBe(false);
    expect(versions).toEqual([first, first, next.version, next.version]);
  });

  test('a failed reload never widens: a throwing build or an older snapshot keeps the current one', () => {
    const older = wide();
    const live = createLivePolicy(narrow());
    const before = live.current;
    const thrown = live.reload(() => createPolicy({ rules: [{ tool: 'read_file', decision: 'allow', source: 'user', match: { path: './x/**' }, tests: { match: ['y'] } }] }));
    expect(thrown.ok).toBe(false);
    if (!thrown.ok) expect(thrown.error).toBeInstanceOf(ConfigurationError);
    expect(live.current).toBe(before);
    const stale = live.replace(older);
    expect(stale.ok).toBe(false);
    expect(live.current).toBe(before);
    expect(live.reload(() => { throw new Error('disk gone'); }).ok).toBe(false);
    expect(live.current).toBe(before);
  });

  test('onChange reports each swap', () => {
    const live = createLivePolicy(wide());
    const seen: number[] = [];
    const stop = live.onChange((snapshot) => seen.push(snapshot.version));
    const next = narrow();
    live.replace(next);
    stop();
    live.replace(narrow());
    expect(seen).toEqual([next.version]);
  });

  test('a call holds its decision while it lives; one that ended without reaching a person leaves nothing behind', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const live = createLivePolicy(wide());
    let input: ArgumentPolicyInput | undefined = { tool: toolView('http'), agent: undefined, args: { url: 'https://api.github.com/x' }, target: { url: 'https://api.github.com/x' }, gateApproved: false };
    expect(live.decideArguments(input).kind).toBe('allow');
    // What an approval request for that call would carry: the tool, the agent and the resolved action (none here).
    const request = { toolName: 'http_request', agent: undefined, resolved: undefined, decision: { kind: 'allow', matched: [] } } as unknown as ToolApprovalRequest;
    live.replace(wide());
    collectGarbage();
    // While the call lives, its decision is found and re-checked on the new snapshot.
    expect(live.decisionFor(request)?.kind).toBe('allow');
    // An allowed call that ran without an approval never settles one: once it is gone, so is its entry, and a request
    // for an unknown call after a replacement fails closed.
    input = undefined;
    await vi.waitFor(async () => {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(live.decisionFor(request)).toMatchObject({ kind: 'deny', reason: 'policy_changed' });
    });
  });
});
