import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScriptedApprover } from '../../testing/index.js';
import { ToolPolicyError } from '../errors/tool-errors.js';
import { timeout } from '../hooks/timeout.js';
import type { AroundWrapper } from '../hooks/hook-types.js';
import { defineTool } from '../tools/define-tool.js';
import { deferred, harness, recordingPolicy, writeFileTool } from './__fixtures__/pipeline-fixtures.js';

/** A tool whose body the test controls: it records start and settles when told. */
function controlledTool(onArgs?: (args: unknown) => void) {
  const started = deferred<AbortSignal | undefined>();
  const finish = deferred<string>();
  let settled = false;
  const tool = defineTool({
    name: 'work',
    description: 'Controlled work.',
    input: z.object({}),
    dispatch: async (args, _host, context) => {
      onArgs?.(args);
      started.resolve(context.signal);
      try {
        return await finish.promise;
      } finally {
        settled = true;
      }
    },
  });
  return { tool, started, finish, isSettled: () => settled };
}

const context = (signal: AbortSignal) => ({ grantedTools: ['work', 'write_file'], signal });

describe('cancellation precedence', () => {
  it('a pre-aborted signal gives ABORTED_BEFORE_DISPATCH with no policy and no body', async () => {
    const { tool, started } = controlledTool();
    const policy = recordingPolicy();
    const { registry } = harness([tool], { policy });
    let ran = false;
    void started.promise.then(() => (ran = true));
    const outcome = await registry.dispatch({ callId: 'c', name: 'work', arguments: { junk: 1 } }, context(AbortSignal.abort()));
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(policy.identityCalls).toHaveLength(0);
    expect(policy.argumentCalls).toHaveLength(0);
    await Promise.resolve();
    expect(ran).toBe(false);
    expect(outcome.receipt.status).toBe('cancelled');
  });

  it('an abort after the body started replaces a success with ABORTED, and waits for the body to settle', async () => {
    const { tool, started, finish, isSettled } = controlledTool();
    const { registry } = harness([tool]);
    const controller = new AbortController();
    const pending = registry.dispatch({ callId: 'c', name: 'work', arguments: {} }, context(controller.signal));
    const bodySignal = await started.promise;
    controller.abort();
    expect(bodySignal?.aborted).toBe(true);
    let resolved = false;
    void pending.then(() => (resolved = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(resolved).toBe(false); // never races away from started work
    finish.resolve('done anyway');
    const outcome = await pending;
    expect(isSettled()).toBe(true);
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('ABORTED');
  });

  // A body that fails after an abort: its own failure is kept when it says more than the abort does.
  it.each([
    ['a policy refusal keeps its code', () => new ToolPolicyError('work', 'scope_denied'), 'POLICY_DENIED'],
    ['the abort reason itself is ABORTED, not EXECUTION_FAILED', (signal: AbortSignal): unknown => signal.reason, 'ABORTED'],
    ['a raw failure stays EXECUTION_FAILED', () => new Error('disk on fire'), 'EXECUTION_FAILED'],
  ] as const)('an abort after the body started, then a body that rejects: %s', async (_case, failure, code) => {
    const { tool, started, finish } = controlledTool();
    const { registry } = harness([tool]);
    const controller = new AbortController();
    const pending = registry.dispatch({ callId: 'c', name: 'work', arguments: {} }, context(controller.signal));
    await started.promise;
    controller.abort();
    finish.reject(failure(controller.signal));
    expect(await pending).toMatchObject({ ok: false, error: { code } });
  });

  it('a denial stays a denial even when the caller aborts meanwhile', async () => {
    const controller = new AbortController();
    const policy = recordingPolicy({
      arguments: () => {
        controller.abort();
        return { kind: 'deny', reason: 'command_not_allowed', matched: [] };
      },
    });
    const { tool } = controlledTool();
    const { registry, host } = harness([tool], { policy });
    const outcome = await registry.dispatch({ callId: 'c', name: 'work', arguments: {} }, context(controller.signal));
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('POLICY_DENIED');
    expect(host.calls).toEqual([]);
  });

  it('TOOL_TIMEOUT stays more specific than a later abort, and the outcome waits for the body', async () => {
    let settled = false;
    const slow = defineTool({
      name: 'work',
      description: 'Slow.',
      input: z.object({}),
      timeoutMs: 20,
      dispatch: async (_args, _host, ctx) => {
        await new Promise((resolve) => ctx.signal?.addEventListener('abort', resolve, { once: true }));
        await new Promise((resolve) => setTimeout(resolve, 15)); // cleanup after the abort
        settled = true;
        return 'late';
      },
    });
    const { registry } = harness([slow]);
    const controller = new AbortController();
    const pending = registry.dispatch({ callId: 'c', name: 'work', arguments: {} }, context(controller.signal));
    setTimeout(() => controller.abort(), 25);
    const outcome = await pending;
    expect(settled).toBe(true);
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('TOOL_TIMEOUT');
    if (!outcome.ok) expect(outcome.error.retryable).toBe(true);
  });

  it('an abort while approval is pending takes the cancel path and never reaches the host', async () => {
    const approver = createScriptedApprover('hang');
    const { registry, host } = harness([writeFileTool]);
    const controller = new AbortController();
    const pending = registry.dispatch({ callId: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } }, { ...context(controller.signal), approval: { confirm: approver.confirm } });
    // The request goes out after the action digest (a Web Crypto round trip): wait for it, however long that takes.
    await expect.poll(() => approver.requests.length).toBe(1);
    controller.abort();
    const outcome = await pending;
    expect(outcome.ok ? 'OK' : outcome.error.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(host.calls).toEqual([]);
  });
});

describe('around wrappers', () => {
  it('may replace only the signal: the caller’s signal is re-fused just before the body', async () => {
    const seen: unknown[] = [];
    const { tool: spy, started, finish } = controlledTool((args) => seen.push(args));
    const detach: AroundWrapper = (next) => (execution) => {
      execution.signal = new AbortController().signal; // tries to drop the caller's cancellation
      return next({ ...execution, arguments: { injected: true } });
    };
    const { registry } = harness([spy], { hooks: { around: [detach] } });
    const controller = new AbortController();
    const pending = registry.dispatch({ callId: 'c', name: 'work', arguments: {} }, context(controller.signal));
    const bodySignal = await started.promise;
    expect(bodySignal?.aborted).toBe(false);
    controller.abort();
    expect(bodySignal?.aborted).toBe(true);
    finish.resolve('x');
    expect(await pending).toMatchObject({ ok: false, error: { code: 'ABORTED' } });
    expect(seen).toEqual([{}]); // the rewritten arguments never reached the body
  });

  it('rejects next() called twice concurrently', async () => {
    const twice: AroundWrapper = (next) => async (execution) => {
      const [first] = await Promise.allSettled([next(execution), next(execution)]);
      return first.status === 'fulfilled' ? first.value : undefined;
    };
    let runs = 0;
    const tool = defineTool({ name: 'work', description: 'Once.', input: z.object({}), dispatch: async () => ((runs += 1), 'ok') });
    const { registry } = harness([tool], { hooks: { around: [twice] } });
    const outcome = await registry.dispatch({ callId: 'c', name: 'work', arguments: {} }, { grantedTools: ['work'] });
    expect(outcome.ok).toBe(true);
    expect(runs).toBe(1);
  });

  it('a wrapper that does not return a function is a configuration error', async () => {
    const broken = (() => 'nope') as unknown as AroundWrapper;
    const tool = defineTool({ name: 'work', description: 'x', input: z.object({}), dispatch: () => 'ok' });
    const { registry } = harness([tool], { hooks: { around: [broken] } });
    await expect(registry.dispatch({ callId: 'c', name: 'work', arguments: {} }, { grantedTools: ['work'] })).rejects.toThrow(/must return a function/);
  });

  it('the first wrapper is the outermost', async () => {
    const order: string[] = [];
    const tag =
      (name: string): AroundWrapper =>
      (next) =>
      async (execution) => {
        order.push(`${name}>`);
        const value = await next(execution);
        order.push(`<${name}`);
        return value;
      };
    const tool = defineTool({ name: 'work', description: 'x', input: z.object({}), dispatch: () => (order.push('body'), 'ok') });
    const { registry } = harness([tool], { hooks: { around: [tag('a'), tag('b'), timeout(1000)] } });
    await registry.dispatch({ callId: 'c', name: 'work', arguments: {} }, { grantedTools: ['work'] });
    expect(order).toEqual(['a>', 'b>', 'body', '<b', '<a']);
  });
});
