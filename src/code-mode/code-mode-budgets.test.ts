import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CodeModeError, type CodeRuntime, createToolRegistry, defineTool, type DispatchContext, type RunCodeResult, type ToolRegistry } from '../core/internal.js';
import { createQuickJsRuntime } from './index.js';

/** Every call here names the tools it grants: a budget is checked against the tools a script reaches. */
function runCode(registry: ToolRegistry, code: string, context: DispatchContext & { readonly grantedTools: readonly string[] }) {
  return registry.dispatch({ callId: 'rc1', name: 'run_code', arguments: { code } }, context);
}

describe('Code Mode budgets: bounded concurrency and bytes delivered into the sandbox', () => {
  /** A tool that counts how many of its calls run at once; each waits for a later turn of the event loop. */
  function concurrencyProbe() {
    let running = 0;
    let peak = 0;
    const tool = defineTool({
      name: 'probe',
      description: 'Counts concurrent calls.',
      input: z.object({ index: z.number() }),
      dispatch: async ({ index }) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 2));
        running -= 1;
        return index;
      },
    });
    return { tool, peak: () => peak };
  }
  const text = defineTool({ name: 'text', description: 'A string of `size` characters.', input: z.object({ size: z.number() }), dispatch: ({ size }) => 'x'.repeat(size) });

  it('runs at most maxConcurrentCalls nested calls at once (default 8), every call still answered, receipts in start order', async () => {
    for (const [options, limit] of [[{}, 8], [{ maxConcurrentCalls: 3 }, 3]] as const) {
      const probe = concurrencyProbe();
      const registry = createToolRegistry({ tools: [probe.tool], presentAs: 'code', codeRuntime: createQuickJsRuntime(options) });
      const outcome = await runCode(registry, 'return await Promise.all(Array.from({ length: 40 }, (_, index) => tools.probe({ index })));', { grantedTools: ['run_code', 'probe'] });
      const result = (outcome.ok ? outcome.value : undefined) as RunCodeResult;
      expect(result.value).toEqual(Array.from({ length: 40 }, (_, index) => index));
      expect(probe.peak()).toBe(limit);
      expect(result.calls.map((receipt) => receipt.status)).toEqual(Array.from({ length: 40 }, () => 'ok'));
    }
  });

  it('takes one of the registry\'s places for a script, whose calls run in it: two scripts on one place run one after the other', async () => {
    const probe = concurrencyProbe();
    const registry = createToolRegistry({ tools: [probe.tool], presentAs: 'code', codeRuntime: createQuickJsRuntime({ maxConcurrentCalls: 3 }), limits: { maxConcurrentCalls: 1 } });
    const script = 'return await Promise.all(Array.from({ length: 20 }, (_, index) => tools.probe({ index })));';
    const both = await Promise.all([1, 2].map((run) => registry.dispatch({ callId: `rc${run}`, name: 'run_code', arguments: { code: script } }, { grantedTools: ['run_code', 'probe'] })));
    expect(both.map((entry) => ((entry.ok ? entry.value : undefined) as RunCodeResult).value)).toEqual([1, 2].map(() => Array.from({ length: 20 }, (_, index) => index)));
    // Each script's own bound, never two scripts' calls at once: the second waited for the first one's place.
    expect(probe.peak()).toBe(3);
  });

  it('counts the JSON bytes delivered: exactly the budget passes, one result more ends the run with result_budget before the script sees it', async () => {
    // "x" × 98 is 100 bytes of JSON: two fit a budget of 200.
    const registry = createToolRegistry({ tools: [text], presentAs: 'code', codeRuntime: createQuickJsRuntime({ maxDeliveredBytes: 200 }) });
    const context = { grantedTools: ['run_code', 'text'] };
    const two = await runCode(registry, 'const a = await tools.text({ size: 98 }); const b = await tools.text({ size: 98 }); return a.length + b.length;', context);
    expect(two.ok ? (two.value as RunCodeResult).value : two.error.message).toBe(196);
    const three = await runCode(
      registry,
      `let seen = 0;
       try { for (let i = 0; i < 3; i += 1) { await tools.text({ size: 98 }); seen += 1; console.log('got', seen); } }
       catch (error) { console.log('caught', error.code); }
       return seen;`,
      context,
    );
    expect(three.ok).toBe(false);
    const error = three.ok ? undefined : (three.error as CodeModeError);
    expect(error).toBeInstanceOf(CodeModeError);
    expect(error).toMatchObject({ code: 'EXECUTION_FAILED', reason: 'result_budget', loopCorrectable: true });
    expect(error?.message).toContain("the result of text is larger than the 0.0 MiB left of the script's 0.0 MiB budget for tool results");
    // The run stopped at the refusal: the script neither received the third value nor caught the refusal.
    expect(error?.console.lines).toEqual(['got 1', 'got 2']);
    expect(error?.calls.map((receipt) => [receipt.tool, receipt.status])).toEqual([
      ['text', 'ok'],
      ['text', 'ok'],
      ['text', 'ok'],
    ]);
  });

  it('refuses one result larger than the whole budget, and stops the calls queued behind it', async () => {
    const probe = concurrencyProbe();
    const registry = createToolRegistry({ tools: [text, probe.tool], presentAs: 'code', codeRuntime: createQuickJsRuntime({ maxDeliveredBytes: 1024, maxConcurrentCalls: 2 }) });
    const outcome = await runCode(
      registry,
      'return await Promise.allSettled([tools.text({ size: 4096 }), ...Array.from({ length: 30 }, (_, index) => tools.probe({ index }))]);',
      { grantedTools: ['run_code', 'text', 'probe'] },
    );
    const error = outcome.ok ? undefined : (outcome.error as CodeModeError);
    expect(error?.reason).toBe('result_budget');
    // Queued calls that never started have no receipt: far fewer than 31 ran.
    expect(error?.calls.length).toBeLessThan(10);
  });

  it('counts the final content a script receives when a hook replaced it, not the value', async () => {
    const registry = createToolRegistry({
      tools: [text],
      presentAs: 'code',
      codeRuntime: createQuickJsRuntime({ maxDeliveredBytes: 64 }),
      hooks: { postExecute: [({ ok }) => (ok ? { kind: 'accept', content: 'short' } : undefined)] },
    });
    const outcome = await runCode(registry, 'const seen = []; for (let i = 0; i < 5; i += 1) seen.push(await tools.text({ size: 100000 })); return seen;', { grantedTools: ['run_code', 'text'] });
    expect(outcome.ok ? (outcome.value as RunCodeResult).value : outcome.error.message).toEqual(['short', 'short', 'short', 'short', 'short']);
  });

  it('a cancellation of run_code still wins over the budget stop', async () => {
    const controller = new AbortController();
    // Its result is over the budget, and it cancels run_code before answering.
    const cancelling = defineTool({ name: 'text', description: 'Cancels its caller, then answers.', input: z.object({}), dispatch: () => (controller.abort(), 'x'.repeat(100)) });
    const registry = createToolRegistry({ tools: [cancelling], presentAs: 'code', codeRuntime: createQuickJsRuntime({ maxDeliveredBytes: 10 }) });
    const outcome = await runCode(registry, 'return await tools.text({});', {
      grantedTools: ['run_code', 'text'],
      signal: controller.signal,
    });
    expect(outcome.ok ? 'ok' : outcome.error.code).toBe('ABORTED');
  });

  it('refuses budget options out of range, from the QuickJS runtime and from any runtime', () => {
    expect(() => createQuickJsRuntime({ maxConcurrentCalls: 0 })).toThrow(/maxConcurrentCalls/);
    expect(() => createQuickJsRuntime({ maxConcurrentCalls: 1.5 })).toThrow(/maxConcurrentCalls/);
    expect(() => createQuickJsRuntime({ maxDeliveredBytes: -1 })).toThrow(/maxDeliveredBytes/);
    const fake = (extra: object): CodeRuntime => ({ language: 'javascript', maxTimeoutMs: 1_000, run: () => Promise.reject(new Error('unused')), ...extra });
    expect(() => createToolRegistry({ tools: [], presentAs: 'code', codeRuntime: fake({ maxConcurrentCalls: 0 }) })).toThrow(/codeRuntime.maxConcurrentCalls/);
    expect(() => createToolRegistry({ tools: [], presentAs: 'code', codeRuntime: fake({ maxDeliveredBytes: Number.NaN }) })).toThrow(/codeRuntime.maxDeliveredBytes/);
  });
});
