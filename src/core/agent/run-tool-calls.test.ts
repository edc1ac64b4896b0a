import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { addTool, harness, readFileTool, recordingPolicy, writeFileTool } from '../dispatch/__fixtures__/pipeline-fixtures.js';
import { defineTool } from '../tools/define-tool.js';
import { runToolCalls } from './run-tool-calls.js';

/** A concurrency-safe tool that records how many calls overlap. */
function overlapTool() {
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const tool = defineTool({
    name: 'sleep',
    description: 'Sleep.',
    input: z.object({ ms: z.number(), id: z.number() }),
    isConcurrencySafe: () => true,
    dispatch: async ({ ms, id }) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running -= 1;
      order.push(id);
      return id;
    },
  });
  return { tool, peak: () => peak, order };
}

const grantedTools = ['add', 'read_file', 'write_file', 'sleep'];

describe('runToolCalls', () => {
  it('runs in parallel only when every call is concurrency-safe, within the limit, results in call order', async () => {
    const { tool, peak, order } = overlapTool();
    const { registry } = harness([tool]);
    const calls = [30, 5, 20, 1].map((ms, id) => ({ callId: `c${id}`, name: 'sleep', arguments: { ms, id } }));
    const step = await runToolCalls(registry, calls, { grantedTools }, { concurrency: 2 });
    expect(step.mode).toBe('parallel');
    expect(peak()).toBe(2);
    expect(order).not.toEqual([0, 1, 2, 3]);
    expect(step.results.map((result) => result.callId)).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(step.results.map((result) => result.message)).toEqual([0, 1, 2, 3].map((id) => ({ role: 'tool', toolCallId: `c${id}`, content: String(id), isError: false })));
  });

  it('one exclusive call makes the whole batch sequential', async () => {
    const { tool, peak } = overlapTool();
    const { registry } = harness([tool, writeFileTool]);
    const step = await runToolCalls(
      registry,
      [
        { callId: 'a', name: 'sleep', arguments: { ms: 5, id: 0 } },
        { callId: 'b', name: 'write_file', arguments: { path: 'x', content: 'y' } },
        { callId: 'c', name: 'sleep', arguments: { ms: 5, id: 1 } },
      ],
      { grantedTools },
    );
    expect(step.mode).toBe('sequential');
    expect(peak()).toBe(1);
    expect(step.results.every((result) => !result.isError)).toBe(true);
  });

  it('loop-correctable errors become isError results within maxCorrections, then end the step', async () => {
    const { registry } = harness([addTool]);
    const bad = (id: string) => ({ callId: id, name: 'add', arguments: { a: 'one' } });
    const within = await runToolCalls(registry, [bad('1'), { callId: '2', name: 'nope', arguments: {} }], { grantedTools }, { maxCorrections: 2 });
    expect(within.fatal).toBeUndefined();
    expect(within.corrections).toBe(2);
    expect(within.results.map((result) => [result.isError, result.outcome.ok ? 'OK' : result.outcome.error.code])).toEqual([
      [true, 'ARGS_INVALID'],
      [true, 'UNKNOWN_TOOL'],
    ]);
    expect(within.results[0]?.message.content).toMatch(/Invalid arguments for tool "add"/);
    const over = await runToolCalls(registry, [bad('1'), bad('2'), bad('3')], { grantedTools }, { maxCorrections: 1 });
    expect(over.fatal?.code).toBe('ARGS_INVALID');
    expect(over.results).toHaveLength(3);
  });

  it('a denied call still yields a tool result, and a fatal error ends the step (later calls are not run)', async () => {
    const policy = recordingPolicy({ arguments: (input) => (input.tool.name === 'write_file' ? { kind: 'deny', reason: 'protected_path', matched: [] } : { kind: 'allow', matched: [] }) });
    const { registry, host } = harness([addTool, writeFileTool, readFileTool], { policy });
    const step = await runToolCalls(
      registry,
      [
        { callId: '1', name: 'add', arguments: { a: 1, b: 1 } },
        { callId: '2', name: 'write_file', arguments: { path: '.env', content: 'x' } },
        { callId: '3', name: 'read_file', arguments: { path: 'a' } },
      ],
      { grantedTools },
    );
    expect(step.fatal?.code).toBe('POLICY_DENIED');
    expect(step.results.map((result) => [result.callId, result.isError, result.outcome.ok ? 'OK' : result.outcome.error.code])).toEqual([
      ['1', false, 'OK'],
      ['2', true, 'POLICY_DENIED'],
      ['3', true, 'ABORTED_BEFORE_DISPATCH'],
    ]);
    expect(step.results.every((result) => result.message.role === 'tool' && result.message.content.length > 0)).toBe(true);
    expect(host.calls).toEqual([]);
  });

  it('a recoverable failure (idempotent read, scope denial) is fed back, not fatal', async () => {
    const policy = recordingPolicy({ arguments: () => ({ kind: 'deny', reason: 'scope_denied', recoverable: true, matched: [] }) });
    const { registry } = harness([readFileTool], { policy });
    const step = await runToolCalls(registry, [{ callId: '1', name: 'read_file', arguments: { path: '../x' } }], { grantedTools });
    expect(step.fatal).toBeUndefined();
    expect(step.results[0]?.isError).toBe(true);
    const strict = await runToolCalls(registry, [{ callId: '1', name: 'read_file', arguments: { path: '../x' } }], { grantedTools }, { recoverToolFailures: false });
    expect(strict.fatal?.code).toBe('POLICY_DENIED');
  });
});
