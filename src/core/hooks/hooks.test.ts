import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScriptedApprover } from '../../testing/index.js';
import { addTool, harness, readFileTool, writeFileTool } from '../dispatch/__fixtures__/pipeline-fixtures.js';
import { ConfigurationError, ToolExecutionError } from '../errors/tool-errors.js';
import { defineTool } from '../tools/define-tool.js';
import { unwrapUntrusted } from '../untrusted/untrusted.js';
import type { MetricsSample } from './metrics.js';
import { metrics } from './metrics.js';
import { retry } from './retry.js';
import { timeout } from './timeout.js';

const grants = { grantedTools: ['add', 'read_file', 'write_file', 'work', 'count'] };
const code = (outcome: { ok: boolean; error?: { code: string } }): string => (outcome.ok ? 'OK' : (outcome.error?.code ?? '?'));

describe('preExecute hooks and guards', () => {
  it('run in order on frozen effective arguments; allow passes, deny stops before the host', async () => {
    const seen: unknown[] = [];
    const { registry, host } = harness([writeFileTool], {
      hooks: {
        preExecute: [
          (execution) => {
            seen.push(execution.arguments);
            expect(Object.isFrozen(execution.arguments)).toBe(true);
            expect(() => ((execution.arguments as { path: string }).path = 'x')).toThrow();
            return { kind: 'allow' };
          },
          () => ({ kind: 'deny', reason: 'no writes today' }),
          () => {
            throw new Error('never reached');
          },
        ],
      },
    });
    const outcome = await registry.dispatch({ callId: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } }, grants);
    expect(outcome.ok ? 'OK' : outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'hook_denied' });
    if (!outcome.ok) expect(outcome.error.message).toContain('no writes today');
    expect(seen).toEqual([{ path: 'a', content: 'b' }]);
    expect(host.calls).toEqual([]);
  });

  it('a hook that throws denies (fail closed)', async () => {
    const { registry } = harness([addTool], { hooks: { preExecute: [() => Promise.reject(new Error('x'))] } });
    expect(code(await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants))).toBe('POLICY_DENIED');
  });

  it('ask with no approval regime is denied; with a regime it asks the approver even for an ungoverned tool', async () => {
    const ask = { preExecute: [() => ({ kind: 'ask' as const, reason: 'unusual' })] };
    const { registry } = harness([addTool], { hooks: ask });
    const denied = await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants);
    expect(denied.ok ? 'OK' : denied.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'approval_unavailable' });
    const approver = createScriptedApprover('approve');
    const approved = await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { ...grants, approval: { confirm: approver.confirm } });
    expect(approved.ok).toBe(true);
    expect(approver.requests[0]?.why).toBe('hook');
    expect(approved.receipt.approval.outcome).toBe('approve');
  });

  it('monotonic: an allow after an ask or a deny never restores permission', async () => {
    const { registry } = harness([addTool], {
      hooks: { preExecute: [() => ({ kind: 'ask' }), () => ({ kind: 'allow' })] },
    });
    expect(code(await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants))).toBe('POLICY_DENIED');
    const guarded = harness([addTool], {
      hooks: { preExecute: [() => ({ kind: 'allow' })], guards: [() => 'budget exhausted', () => undefined] },
    });
    const outcome = await guarded.registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants);
    expect(outcome.ok ? 'OK' : outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'guard_denied' });
  });

  it('a guard that throws denies, and hook text is scrubbed of secrets', async () => {
    const { registry } = harness([addTool], {
      hooks: {
        guards: [
          () => {
            throw new Error('x');
          },
        ],
      },
    });
    expect(code(await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants))).toBe('POLICY_DENIED');
    const leaky = harness([addTool], { hooks: { guards: [() => 'token=sk-proj-Zq8vT3xW9yB2nL5mK7pR4sD1fG6hJ0aQ is banned'] } });
    const outcome = await leaky.registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants);
    if (!outcome.ok) expect(outcome.error.message).not.toContain('Zq8vT3xW9');
  });

  it('hooks and guards see what the definition says the tool delegates to, whatever its name', async () => {
    const relay = defineTool({ name: 'relay', description: 'Reaches an upstream tool.', input: z.object({ server: z.string() }), policy: { egress: 'mcp' }, delegatesTo: 'mcp', dispatch: () => 'relayed' });
    const seen: unknown[] = [];
    const { registry } = harness([relay, addTool], {
      hooks: {
        preExecute: [(execution) => void seen.push(['pre', execution.toolName, execution.delegatesTo])],
        guards: [(execution) => (execution.delegatesTo === 'mcp' ? 'delegates' : undefined)],
        postExecute: [(state) => void seen.push(['post', state.toolName, state.delegatesTo])],
      },
    });
    const relayed = await registry.dispatch({ callId: 'c', name: 'relay', arguments: { server: 'up' } }, { grantedTools: ['relay'] });
    expect(relayed.ok ? 'OK' : relayed.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'guard_denied' });
    expect(code(await registry.dispatch({ callId: 'd', name: 'add', arguments: { a: 1, b: 2 } }, grants))).toBe('OK');
    expect(seen).toEqual([
      ['pre', 'relay', 'mcp'],
      ['pre', 'add', undefined],
      ['post', 'add', undefined],
    ]);
  });
});

describe('postExecute hooks', () => {
  it('accept may replace the content (value kept) and attach ordered contexts', async () => {
    const { registry } = harness([addTool], {
      hooks: {
        postExecute: [
          () => ({ kind: 'accept', content: 'three', contexts: ['first'] }),
          (state) => ({ kind: 'accept', contexts: [`saw ${state.content}`] }),
        ],
      },
    });
    const outcome = await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.value).toBe(3);
    expect(unwrapUntrusted(outcome.content)).toBe('three');
    expect(outcome.contexts?.map((entry) => unwrapUntrusted(entry))).toEqual(['first', 'saw three']);
  });

  it('a replaced value is revalidated against the output schema and re-rendered', async () => {
    const count = defineTool({ name: 'count', description: 'Count.', input: z.object({}), output: z.object({ n: z.number() }), dispatch: () => ({ n: 1 }) });
    const good = harness([count], { hooks: { postExecute: [() => ({ kind: 'accept', value: { n: 2 } })] } });
    const outcome = await good.registry.dispatch({ callId: 'c', name: 'count', arguments: {} }, grants);
    expect(outcome.ok && outcome.value).toEqual({ n: 2 });
    expect(unwrapUntrusted(outcome.content)).toBe('{"n":2}');
    const bad = harness([count], { hooks: { postExecute: [() => ({ kind: 'accept', value: { n: 'two' } })] } });
    expect(code(await bad.registry.dispatch({ callId: 'c', name: 'count', arguments: {} }, grants))).toBe('OUTPUT_INVALID');
  });

  it('replacing both the content and the value is refused', async () => {
    const { registry } = harness([addTool], { hooks: { postExecute: [() => ({ kind: 'accept', content: 'x', value: 4 })] } });
    const outcome = await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants);
    expect(code(outcome)).toBe('EXECUTION_FAILED');
  });

  it('block turns the result into a failure carrying the feedback as content', async () => {
    const { registry } = harness([addTool], { hooks: { postExecute: [() => ({ kind: 'block', feedback: 'numbers are private', contexts: ['ctx'] })] } });
    const outcome = await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants);
    expect(outcome.ok ? 'OK' : outcome.error).toMatchObject({ code: 'POLICY_DENIED', reason: 'result_blocked' });
    expect(unwrapUntrusted(outcome.content)).toBe('numbers are private');
    expect(outcome.contexts?.map((entry) => unwrapUntrusted(entry))).toEqual(['ctx']);
    expect('value' in outcome && outcome.value !== undefined).toBe(false);
  });

  it('a throwing postExecute hook fails the call closed', async () => {
    const { registry } = harness([addTool], { hooks: { postExecute: [() => Promise.reject(new Error('x'))] } });
    expect(code(await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, grants))).toBe('EXECUTION_FAILED');
  });
});

describe('finalizeContent', () => {
  it('runs exactly once for every outcome, failures included', async () => {
    const calls: { ok: boolean; errorCode: string | undefined }[] = [];
    const tool = defineTool({
      name: 'work',
      description: 'Fails on demand.',
      input: z.object({ fail: z.boolean() }),
      dispatch: ({ fail }) => {
        if (fail) throw new Error('no');
        return 'fine';
      },
      finalizeContent: (state) => {
        calls.push({ ok: state.ok, errorCode: state.errorCode });
        return `${state.content} [final]`;
      },
    });
    const { registry } = harness([tool]);
    const ok = await registry.dispatch({ callId: 'a', name: 'work', arguments: { fail: false } }, grants);
    const failed = await registry.dispatch({ callId: 'b', name: 'work', arguments: { fail: true } }, grants);
    const invalid = await registry.dispatch({ callId: 'c', name: 'work', arguments: { fail: 'x' } }, grants);
    const notGranted = await registry.dispatch({ callId: 'd', name: 'work', arguments: { fail: false } }, {});
    expect(calls).toEqual([
      { ok: true, errorCode: undefined },
      { ok: false, errorCode: 'EXECUTION_FAILED' },
      { ok: false, errorCode: 'ARGS_INVALID' },
      { ok: false, errorCode: 'POLICY_DENIED' },
    ]);
    expect(unwrapUntrusted(ok.content)).toBe('fine [final]');
    expect(unwrapUntrusted(failed.content)).toMatch(/\[final\]$/);
    expect(unwrapUntrusted(invalid.content)).toMatch(/\[final\]$/);
    expect(unwrapUntrusted(notGranted.content)).toMatch(/\[final\]$/);
  });
});

describe('renderContent', () => {
  const tool = (renderContent: (result: { text: string }) => string) =>
    defineTool({ name: 'work', description: 'Returns a text.', input: z.object({ fail: z.boolean() }), dispatch: ({ fail }) => {
      if (fail) throw new Error('no');
      return { text: 'a "quoted"\nline' };
    }, renderContent });

  it('writes the model-facing text of a success, which is then bounded; the value stays the value', async () => {
    const { registry } = harness([tool((result) => `text:\n${result.text}`)]);
    const outcome = await registry.dispatch({ callId: 'a', name: 'work', arguments: { fail: false } }, grants);
    expect(unwrapUntrusted(outcome.content)).toBe('text:\na "quoted"\nline');
    expect(outcome.ok && outcome.value).toEqual({ text: 'a "quoted"\nline' });
    expect(outcome.ok && outcome.contentReplaced).not.toBe(true);
    const bounded = await registry.dispatch({ callId: 'b', name: 'work', arguments: { fail: false } }, { ...grants, limits: { maxLines: 1 } });
    expect(unwrapUntrusted(bounded.content)).toMatch(/^text:\n\[toolgate: output truncated/);
    const failed = await registry.dispatch({ callId: 'c', name: 'work', arguments: { fail: true } }, grants);
    expect(unwrapUntrusted(failed.content)).toContain('failed');
  });

  it('falls back to JSON when it throws or returns no string', async () => {
    for (const render of [() => { throw new Error('broken'); }, () => 42 as unknown as string]) {
      const { registry } = harness([tool(render)]);
      const outcome = await registry.dispatch({ callId: 'a', name: 'work', arguments: { fail: false } }, grants);
      expect(unwrapUntrusted(outcome.content)).toBe('{"text":"a \\"quoted\\"\\nline"}');
    }
  });

  it('must be a function', () => {
    expect(() => harness([tool('text' as unknown as () => string)])).toThrow(/renderContent/);
  });
});

describe('built-in wrappers', () => {
  it('timeout(ms) aborts the signal and reports TOOL_TIMEOUT', async () => {
    const tool = defineTool({
      name: 'work',
      description: 'Hangs until aborted.',
      input: z.object({}),
      dispatch: (_args, _host, ctx) => new Promise((_resolve, reject) => ctx.signal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true })),
    });
    const { registry } = harness([tool], { hooks: { around: [timeout(10)] } });
    const outcome = await registry.dispatch({ callId: 'c', name: 'work', arguments: {} }, grants);
    expect(outcome.ok ? 'OK' : outcome.error).toMatchObject({ code: 'TOOL_TIMEOUT', timeoutMs: 10 });
    expect(() => timeout(0)).toThrow(ConfigurationError);
    expect(() => timeout(Number.NaN)).toThrow('Configuration "timeout(ms)" needs a positive number of milliseconds.');
  });

  it('retry retries a raw (retryable) failure of an idempotent read', async () => {
    const { registry, host } = harness([readFileTool], { hooks: { around: [retry({ attempts: 3, backoff: () => 0 })] } });
    host.script('fs.readFile', { fault: new Error('EAGAIN') }, { fault: new Error('EAGAIN') }, { result: { content: 'hello', bytes: 5, partial: false } });
    const outcome = await registry.dispatch({ callId: 'c', name: 'read_file', arguments: { path: 'a' } }, grants);
    expect(outcome.ok && outcome.value).toBe('hello');
    expect(host.calls).toHaveLength(3);
  });

  it('retry never retries a non-idempotent tool: its side effect may have landed', async () => {
    const { registry, host } = harness([writeFileTool], { hooks: { around: [retry({ attempts: 3, backoff: () => 0 })] } });
    host.script('fs.writeFile', { fault: new Error('ECONNRESET') });
    const outcome = await registry.dispatch({ callId: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } }, grants);
    expect(code(outcome)).toBe('EXECUTION_FAILED');
    expect(host.calls).toHaveLength(1);
  });

  it('retry never retries a non-retryable error, a timeout, or after the caller aborted', async () => {
    const { ToolPolicyError } = await import('../errors/tool-errors.js');
    const { registry, host } = harness([readFileTool], { hooks: { around: [retry({ attempts: 3, backoff: () => 0 })] } });
    host.script('fs.readFile', { fault: new ToolPolicyError('read_file', 'scope_denied') });
    expect(code(await registry.dispatch({ callId: 'c', name: 'read_file', arguments: { path: 'a' } }, grants))).toBe('POLICY_DENIED');
    expect(host.calls).toHaveLength(1);

    const slow = defineTool({
      name: 'work',
      description: 'Slow read.',
      input: z.object({ path: z.string() }),
      facts: { readOnly: true, idempotent: true },
      timeoutMs: 5,
      dispatch: () => new Promise<string>((resolve) => setTimeout(() => resolve('late'), 30)),
    });
    let attempts = 0;
    const counted = harness([slow], { hooks: { around: [retry({ attempts: 3, backoff: () => 0 }), (next) => (execution) => ((attempts += 1), next(execution))] } });
    expect(code(await counted.registry.dispatch({ callId: 'c', name: 'work', arguments: { path: 'a' } }, grants))).toBe('TOOL_TIMEOUT');
    expect(attempts).toBe(1);

    const controller = new AbortController();
    const aborting = harness([readFileTool], { hooks: { around: [retry({ attempts: 3, backoff: () => 0 })] } });
    aborting.host.script('fs.readFile', { respond: () => (controller.abort(), Promise.reject(new Error('EAGAIN'))) });
    const outcome = await aborting.registry.dispatch({ callId: 'c', name: 'read_file', arguments: { path: 'a' } }, { ...grants, signal: controller.signal });
    expect(code(outcome)).toBe('EXECUTION_FAILED');
    expect(aborting.host.calls).toHaveLength(1);
  });

  it('metrics records each attempt with its code; a throwing recorder never fails the call', async () => {
    const samples: MetricsSample[] = [];
    const { registry, host } = harness([readFileTool], {
      hooks: {
        around: [
          retry({ attempts: 2, backoff: () => 0 }),
          metrics((sample) => samples.push(sample)),
          metrics(() => {
            throw new Error('recorder bug');
          }),
        ],
      },
    });
    host.script('fs.readFile', { fault: new Error('EAGAIN') }, { result: { content: 'ok', bytes: 2, partial: false } });
    const outcome = await registry.dispatch({ callId: 'c', name: 'read_file', arguments: { path: 'a' } }, grants);
    expect(outcome.ok).toBe(true);
    expect(samples.map((sample) => [sample.attempt, sample.ok, sample.code])).toEqual([
      [1, false, 'EXECUTION_FAILED'],
      [2, true, 'OK'],
    ]);
    expect(new ToolExecutionError('x').retryable).toBe(true);
  });
});
