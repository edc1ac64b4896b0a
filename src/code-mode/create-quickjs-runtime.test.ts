import { describe, expect, it } from 'vitest';
import type { CodeRunRequest, CodeRunResult, CodeToolReply } from '../core/internal.js';
import { createQuickJsRuntime, type QuickJsRuntimeOptions } from './index.js';

const echo = async (name: string, args: unknown): Promise<CodeToolReply> => ({ ok: true, value: { name, args } });

function run(code: string, options: QuickJsRuntimeOptions = {}, request: Partial<CodeRunRequest> = {}): Promise<CodeRunResult> {
  return createQuickJsRuntime(options).run({ code, timeoutMs: undefined, signal: undefined, callTool: echo, ...request });
}

describe('createQuickJsRuntime', () => {
  it('returns the script value as JSON, with bridged tool results and console output', async () => {
    const result = await run('const a = await tools.first({ n: 1 }); console.log("got", a.name, { x: 1 }); console.warn("careful"); return { a, sum: 1 + 2 };');
    expect(result).toEqual({
      ok: true,
      value: { a: { name: 'first', args: { n: 1 } }, sum: 3 },
      console: { lines: ['got first {"x":1}', 'warn: careful'], truncated: false },
    });
    expect(await run('const x = 1;')).toMatchObject({ ok: true, value: null });
  });

  it('has no host access: no require, process, fetch, timers, std/os modules or bridge globals', async () => {
    const result = await run(`
      const names = ['require', 'process', 'fetch', 'setTimeout', 'setInterval', 'std', 'os', 'XMLHttpRequest', 'WebAssembly', '__toolgate_call', '__toolgate_console'];
      const seen = names.filter((name) => typeof globalThis[name] !== 'undefined');
      let imported = 'no';
      try { await import('fs'); imported = 'yes'; } catch { imported = 'refused'; }
      return { seen, imported, tools: Object.keys(tools), replaceable: Reflect.set(globalThis, 'tools', 1) };
    `);
    expect(result).toMatchObject({ ok: true, value: { seen: [], imported: 'refused', tools: [], replaceable: false } });
  });

  it('stops an infinite loop at the wall-time limit', async () => {
    const result = await run('while (true) {}', { timeoutMs: 150, cpuTimeMs: 60_000 });
    expect(result).toMatchObject({ ok: false, failure: 'time_limit' });
  });

  it('stops an infinite loop at the CPU limit, even when the loop catches errors', async () => {
    const result = await run('for (;;) { try { while (true) {} } catch (error) { /* an interrupt is not catchable */ } }', { cpuTimeMs: 100 });
    expect(result).toMatchObject({ ok: false, failure: 'cpu_limit' });
  });

  it('refuses the result of one built-in call that ran past the wall-time or CPU limit (it cannot be interrupted while it runs)', async () => {
    // QuickJS's indexOf is a naive search: one call, no bytecode step in between, so the interrupt handler never runs.
    const slowCall = 'const haystack = "x".repeat(60000); const needle = "x".repeat(6000) + "y"; return haystack.indexOf(needle);';
    const timed = performance.now();
    const overWall = await run(slowCall, { timeoutMs: 60, cpuTimeMs: 60_000 });
    const elapsed = performance.now() - timed;
    expect(elapsed).toBeGreaterThan(60); // The call really did run past the limit.
    expect(overWall).toMatchObject({ ok: false, failure: 'time_limit' });
    expect(await run(slowCall, { timeoutMs: 60_000, cpuTimeMs: 40 })).toMatchObject({ ok: false, failure: 'cpu_limit' });
    // The same call under generous limits is fine.
    expect(await run(slowCall, { timeoutMs: 60_000, cpuTimeMs: 60_000 })).toMatchObject({ ok: true, value: -1 });
  });

  it('lets a script shorten, never lengthen, its wall time', async () => {
    const runtime = createQuickJsRuntime({ timeoutMs: 5_000, cpuTimeMs: 60_000 });
    expect(runtime.maxTimeoutMs).toBe(5_000);
    const started = Date.now();
    const result = await runtime.run({ code: 'while (true) {}', timeoutMs: 100, signal: undefined, callTool: echo });
    expect(result).toMatchObject({ ok: false, failure: 'time_limit' });
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('stops unbounded allocation at the memory limit (strings, arrays and typed arrays)', async () => {
    for (const code of [
      'const keep = []; while (true) keep.push("x".repeat(1 << 20) + keep.length);',
      'const keep = []; while (true) keep.push(new Array(100000).fill(1.5));',
      'const keep = []; while (true) keep.push(new Uint8Array(1 << 20));',
    ]) {
      const result = await run(code, { memoryLimitBytes: 32 * 1024 * 1024, timeoutMs: 15_000, cpuTimeMs: 15_000 });
      expect(result, code).toMatchObject({ ok: false, failure: 'memory_limit' });
    }
  });

  it('stops unbounded recursion at the stack limit', async () => {
    const result = await run('const down = (n) => down(n + 1) + 1; return down(0);', { stackLimitBytes: 64 * 1024 });
    expect(result).toMatchObject({ ok: false, failure: 'stack_limit' });
  });

  it('reports a script error with its line, and a promise that can never settle', async () => {
    const thrown = await run('const a = 1;\nnull.boom;');
    expect(thrown).toMatchObject({ ok: false, failure: 'script_error' });
    expect(thrown.ok ? '' : thrown.message).toMatch(/TypeError.*\(line 2\)/);
    expect(await run('await new Promise(() => {});')).toMatchObject({ ok: false, failure: 'script_error', message: expect.stringContaining('never settle') });
    expect(await run('return (')).toMatchObject({ ok: false, failure: 'script_error', message: expect.stringContaining('SyntaxError') });
  });

  it('refuses results that are not bounded JSON', async () => {
    expect(await run('return 10n;')).toMatchObject({ ok: false, failure: 'result_invalid' });
    expect(await run('return "x".repeat(2000);', { maxResultChars: 1000 })).toMatchObject({ ok: false, failure: 'result_invalid' });
    expect(await run('JSON.stringify = () => ({}); return 1;')).toMatchObject({ ok: false, failure: 'result_invalid' });
    expect(await run('JSON.stringify = () => "{not json"; return 1;')).toMatchObject({ ok: false, failure: 'result_invalid' });
  });

  it('refuses a result nested deeper than the JSON depth bound, however short its text', async () => {
    // The sandbox's own stringify is replaceable: the host parses what it gets and must bound its depth.
    const deep = await run('JSON.stringify = () => "[".repeat(200000) + "]".repeat(200000); return 1;');
    expect(deep).toMatchObject({ ok: false, failure: 'result_invalid', message: expect.stringContaining('deeper than 64') });
    expect(await run('let v = 1; for (let i = 0; i < 70; i++) v = [v]; return v;')).toMatchObject({ ok: false, failure: 'result_invalid' });
    expect(await run('let v = 1; for (let i = 0; i < 60; i++) v = { v }; return v;')).toMatchObject({ ok: true });
  });

  it('bounds console output', async () => {
    const result = await run('for (let i = 0; i < 1000; i++) console.log("line " + i + " " + "y".repeat(100)); return 1;', { maxConsoleBytes: 2048 });
    expect(result.ok).toBe(true);
    expect(result.console.truncated).toBe(true);
    expect(result.console.lines.join('\n').length).toBeLessThanOrEqual(2048);
    expect(result.console.lines.length).toBeGreaterThan(0);
  });

  it('turns a refused call into a catchable ToolCallError with the secret-free view only', async () => {
    const callTool = async (): Promise<CodeToolReply> => ({ ok: false, error: { code: 'POLICY_DENIED', message: 'Tool "x" was refused.', tool: 'x', reason: 'rule_denied' } });
    const result = await run(
      'try { await tools.x({}); return "no"; } catch (error) { return { isToolError: error instanceof ToolCallError, name: error.name, code: error.code, reason: error.reason, tool: error.tool, message: error.message }; }',
      {},
      { callTool },
    );
    expect(result).toMatchObject({ ok: true, value: { isToolError: true, name: 'ToolCallError', code: 'POLICY_DENIED', reason: 'rule_denied', tool: 'x', message: 'Tool "x" was refused.' } });
  });

  it('passes arguments as JSON only: a cyclic argument throws inside the script, an invalid one reaches the bridge as undefined', async () => {
    const seen: unknown[] = [];
    const callTool = async (_name: string, args: unknown): Promise<CodeToolReply> => {
      seen.push(args);
      return { ok: true, value: 1 };
    };
    const result = await run('const a = {}; a.self = a; try { await tools.x(a); } catch (e) { return e.name; }', {}, { callTool });
    expect(result).toMatchObject({ ok: true, value: 'TypeError' });
    expect(seen).toEqual([]);
  });

  it('delivers tool values that are not plain JSON safely (bigint as text)', async () => {
    const callTool = async (): Promise<CodeToolReply> => ({ ok: true, value: { big: 10n, list: [1n] } });
    expect(await run('return await tools.x({});', {}, { callTool })).toMatchObject({ ok: true, value: { big: '10', list: ['1'] } });
  });

  it('aborts: the script stops and the signal of every call in flight fires before run() returns', async () => {
    const controller = new AbortController();
    const aborted: boolean[] = [];
    const callTool = (_name: string, _args: unknown, signal: AbortSignal): Promise<CodeToolReply> =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          aborted.push(true);
          resolve({ ok: false, error: { code: 'ABORTED', message: 'cancelled', tool: 'slow' } });
        });
        aborted.push(false);
        // Cancel once both calls are in flight.
        if (aborted.length === 2) setTimeout(() => controller.abort(), 5);
      });
    const result = await run('await Promise.all([tools.slow({}), tools.slow({})]); return 1;', {}, { callTool, signal: controller.signal });
    expect(result).toMatchObject({ ok: false, failure: 'aborted' });
    expect(aborted).toEqual([false, false, true, true]);
  });

  it('rejects bad options at creation', () => {
    expect(() => createQuickJsRuntime({ memoryLimitBytes: 1024 })).toThrow(/memoryLimitBytes/);
    expect(() => createQuickJsRuntime({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createQuickJsRuntime({ cpuTimeMs: 1.5 })).toThrow(/cpuTimeMs/);
  });
});
