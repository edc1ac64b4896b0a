import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CodeModeCancelledError,
  CodeModeError,
  type CodeRuntime,
  createToolRegistry,
  defineTool,
  type DispatchContext,
  type PolicyDecision,
  type RunCodeResult,
  type ToolPolicy,
  type ToolRegistry,
  unwrapUntrusted,
} from '../core/internal.js';
import { createScriptedApprover, recordEvents } from '../testing/index.js';
import { createQuickJsRuntime } from './index.js';

const SECRET = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e';

const notes = new Map<string, string>();
const addNumbers = defineTool({
  name: 'add',
  description: 'Add two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  output: z.object({ sum: z.number() }),
  isConcurrencySafe: () => true,
  dispatch: ({ a, b }) => ({ sum: a + b }),
});
const saveNote = defineTool({
  name: 'save_note',
  description: 'Save a note.',
  input: z.object({ title: z.string(), body: z.string() }),
  dispatch: ({ title, body }) => {
    notes.set(title, body);
    return { saved: title };
  },
});
const deleteAll = defineTool({ name: 'delete_all', description: 'Delete every note.', input: z.object({ token: z.string() }), dispatch: () => notes.clear() });
const slow = defineTool({
  name: 'slow',
  description: 'Waits until cancelled.',
  input: z.object({}),
  dispatch: (_args, _host, context) =>
    new Promise((_resolve, reject) => {
      slowStarted.push(context.callId);
      context.signal?.addEventListener('abort', () => {
        slowCancelled.push(context.callId);
        reject(context.signal?.reason as Error);
      });
    }),
});
const slowStarted: string[] = [];
const slowCancelled: string[] = [];

/** A real policy seam: allow, ask for save_note, deny delete_all. Counts every consultation. */
function countingPolicy(): ToolPolicy & { consulted: string[] } {
  const consulted: string[] = [];
  const allow: PolicyDecision = { kind: 'allow', matched: [] };
  return {
    version: 1,
    consulted,
    decideIdentity({ tool }) {
      consulted.push(`identity:${tool.name}`);
      return tool.name === 'delete_all' ? { kind: 'deny', reason: 'rule_denied', matched: [{ id: 'no-delete', source: 'test', decision: 'deny' }] } : allow;
    },
    decideArguments({ tool }) {
      consulted.push(`arguments:${tool.name}`);
      return tool.name === 'save_note' ? { kind: 'ask', reason: 'writes a note', matched: [] } : allow;
    },
  };
}

const runtime = createQuickJsRuntime({ timeoutMs: 10_000, cpuTimeMs: 5_000 });
const granted = ['run_code', 'add', 'save_note', 'delete_all', 'slow'];

function registryFor(presentAs: 'native' | 'code' | 'both' = 'code', policy: ToolPolicy = countingPolicy()): ToolRegistry {
  return createToolRegistry({ tools: [addNumbers, saveNote, deleteAll, slow], presentAs, codeRuntime: runtime, policy });
}

async function runCode(registry: ToolRegistry, code: string, context: DispatchContext = {}) {
  return registry.dispatch({ callId: 'rc1', name: 'run_code', arguments: { code } }, { grantedTools: granted, ...context });
}

describe('Code Mode through the registry', () => {
  it('runs a script whose tool calls are nested dispatches with run_code as parent, and returns value, console and receipts', async () => {
    const registry = registryFor();
    const events = recordEvents(registry, ['tool-call-requested']);
    const outcome = await runCode(registry, 'const x = await tools.add({ a: 1, b: 2 }); console.log("sum", x.sum); const [y, z] = await Promise.all([tools.add({ a: x.sum, b: 10 }), tools.add({ a: 0, b: 0 })]); return y.sum + z.sum;');
    expect(outcome.ok).toBe(true);
    const result = (outcome.ok ? outcome.value : undefined) as RunCodeResult;
    expect(result.value).toBe(13);
    expect(result.console).toEqual({ lines: ['sum 3'], truncated: false });
    expect(result.calls.map((receipt) => [receipt.tool, receipt.status, receipt.parent])).toEqual([
      ['add', 'ok', 'rc1'],
      ['add', 'ok', 'rc1'],
      ['add', 'ok', 'rc1'],
    ]);
    expect(events.of('tool-call-requested').map((event) => [event.toolName, event.parent])).toEqual([
      ['run_code', undefined],
      ['add', 'rc1'],
      ['add', 'rc1'],
      ['add', 'rc1'],
    ]);
    // The model reads a compact form: the value, the console and one line per call.
    expect(JSON.parse(unwrapUntrusted(outcome.content))).toEqual({ value: 13, console: ['sum 3'], calls: ['add: OK', 'add: OK', 'add: OK'] });
  });

  it('governs nested calls exactly like direct ones: a denial is a catchable exception with a secret-free message', async () => {
    const policy = countingPolicy();
    const registry = registryFor('code', policy);
    const outcome = await runCode(
      registry,
      `const seen = [];
       try { await tools.delete_all({ token: '${SECRET}' }); } catch (error) { seen.push([error.name, error.code, error.reason, error.message]); }
       try { await tools.add({ a: 'one', b: 2 }); } catch (error) { seen.push([error.code]); }
       try { await tools.no_such_tool({}); } catch (error) { seen.push([error.code]); }
       return seen;`,
    );
    expect(outcome.ok).toBe(true);
    const value = (outcome.ok ? (outcome.value as RunCodeResult).value : undefined) as unknown[][];
    expect(value).toEqual([['ToolCallError', 'POLICY_DENIED', 'rule_denied', 'Tool "delete_all" was refused by a policy rule.'], ['ARGS_INVALID'], ['UNKNOWN_TOOL']]);
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    expect(policy.consulted).toContain('identity:delete_all');

    // The same call made directly (native) is refused with the same error.
    const direct = await registryFor('native', countingPolicy()).dispatch({ callId: 'd1', name: 'delete_all', arguments: { token: SECRET } }, { grantedTools: granted });
    expect(direct.ok ? undefined : [direct.error.code, direct.error.message]).toEqual(['POLICY_DENIED', 'Tool "delete_all" was refused by a policy rule.']);
  });

  it('applies the caller grant inside the script: an ungranted tool is refused as not_granted', async () => {
    const outcome = await runCode(registryFor(), 'try { await tools.add({ a: 1, b: 1 }); } catch (error) { return error.reason; }', { grantedTools: ['run_code'] });
    expect(outcome.ok ? (outcome.value as RunCodeResult).value : outcome.error.code).toBe('not_granted');
  });

  it('pauses the script on a nested approval until it resolves, then continues (approve and reject)', async () => {
    notes.clear();
    let release: () => void = () => undefined;
    const approver = createScriptedApprover(
      () => new Promise((resolve) => (release = () => resolve({ outcome: 'approve' }))),
      'reject',
    );
    const pending = runCode(
      registryFor(),
      `console.log('before');
       const saved = await tools.save_note({ title: 'a', body: 'b' });
       console.log('after');
       let second = 'none';
       try { await tools.save_note({ title: 'c', body: 'd' }); } catch (error) { second = error.code + '/' + error.reason; }
       return { saved, second };`,
      { approval: { confirm: approver.confirm } },
    );
    await expect.poll(() => approver.requests.length).toBe(1);
    expect(notes.size).toBe(0); // paused: the script waits on the approval, nothing ran
    release();
    const outcome = await pending;
    expect(outcome.ok).toBe(true);
    const result = (outcome.ok ? outcome.value : undefined) as RunCodeResult;
    expect(result.value).toEqual({ saved: { saved: 'a' }, second: 'DENIED_BY_USER/user_rejected' });
    expect(result.console.lines).toEqual(['before', 'after']);
    expect([...notes.keys()]).toEqual(['a']);
    expect(approver.requests.map((request) => [request.toolName, request.why])).toEqual([
      ['save_note', 'rule'],
      ['save_note', 'rule'],
    ]);
    expect(result.calls.map((receipt) => [receipt.status, receipt.approval.outcome])).toEqual([
      ['ok', 'approve'],
      ['denied', 'reject'],
    ]);
  });

  it('cancels every nested call (running and awaiting approval) when run_code is aborted', async () => {
    slowStarted.length = 0;
    slowCancelled.length = 0;
    const controller = new AbortController();
    const approver = createScriptedApprover('hang');
    const pending = runCode(registryFor(), 'await Promise.all([tools.slow({}), tools.slow({}), tools.save_note({ title: "x", body: "y" })]); return "finished";', {
      signal: controller.signal,
      approval: { confirm: approver.confirm },
    });
    await expect.poll(() => slowStarted.length + approver.requests.length).toBe(3);
    controller.abort();
    const outcome = await pending;
    expect(outcome.ok ? 'ok' : outcome.error.code).toBe('ABORTED');
    expect(slowCancelled.sort()).toEqual([...slowStarted].sort());
    expect(slowCancelled).toHaveLength(2);
  });

  it('keeps the receipts when run_code is cancelled just as its script finished, from any runtime', async () => {
    const controller = new AbortController();
    const finishing: CodeRuntime = {
      language: 'javascript',
      maxTimeoutMs: 1_000,
      async run(request) {
        await request.callTool('add', { a: 1, b: 2 }, new AbortController().signal);
        controller.abort(); // after the last call, before the pipeline settles the finished script
        return { ok: true, value: 3, console: { lines: [], truncated: false } };
      },
    };
    const registry = createToolRegistry({ tools: [addNumbers], presentAs: 'code', codeRuntime: finishing });
    const outcome = await registry.dispatch({ callId: 'f1', name: 'run_code', arguments: { code: 'x' } }, { grantedTools: ['run_code', 'add'], signal: controller.signal });
    expect(outcome.ok ? 'ok' : outcome.error.code).toBe('ABORTED');
    expect(outcome.ok ? [] : (outcome.error as CodeModeCancelledError).calls.map((receipt) => [receipt.tool, receipt.status])).toEqual([['add', 'ok']]);
  });

  it('stops a script that loops forever at the time limit, as a loop-correctable error', async () => {
    const outcome = await registryFor().dispatch({ callId: 't1', name: 'run_code', arguments: { code: 'while (true) {}', timeoutMs: 200 } }, { grantedTools: granted });
    expect(outcome.ok).toBe(false);
    const error = outcome.ok ? undefined : outcome.error;
    expect(error).toBeInstanceOf(CodeModeError);
    expect(error).toMatchObject({ code: 'TOOL_TIMEOUT', reason: 'time_limit', loopCorrectable: true });
  });

  it('stops a script that allocates without bound at the memory limit', async () => {
    const registry = createToolRegistry({ tools: [addNumbers], presentAs: 'code', codeRuntime: createQuickJsRuntime({ memoryLimitBytes: 32 * 1024 * 1024 }) });
    const outcome = await registry.dispatch({ callId: 'm1', name: 'run_code', arguments: { code: 'const keep = []; while (true) keep.push("x".repeat(1 << 20) + keep.length);' } }, { grantedTools: granted });
    expect(outcome.ok ? 'ok' : outcome.error).toMatchObject({ code: 'EXECUTION_FAILED', reason: 'memory_limit' });
  });

  it('bounds an approval wait by the script time limit: the approval is cancelled and nothing runs', async () => {
    notes.clear();
    const approver = createScriptedApprover('hang');
    const outcome = await registryFor().dispatch(
      { callId: 'h1', name: 'run_code', arguments: { code: 'await tools.save_note({ title: "t", body: "b" }); return 1;', timeoutMs: 150 } },
      { grantedTools: granted, approval: { confirm: approver.confirm } },
    );
    expect(outcome.ok ? 'ok' : outcome.error).toMatchObject({ code: 'TOOL_TIMEOUT', reason: 'time_limit' });
    expect(approver.requests).toHaveLength(1);
    expect(notes.size).toBe(0);
    expect((outcome.ok ? [] : (outcome.error as CodeModeError).calls).map((receipt) => receipt.status)).toEqual(['cancelled']);
  });

  it('cancels calls the script did not await once it returns', async () => {
    slowStarted.length = 0;
    slowCancelled.length = 0;
    const outcome = await runCode(registryFor(), 'tools.slow({}); return "done";');
    expect(outcome.ok ? (outcome.value as RunCodeResult).value : outcome.error.code).toBe('done');
    expect(slowStarted).toHaveLength(1);
    expect(slowCancelled).toEqual(slowStarted);
    expect(outcome.ok ? (outcome.value as RunCodeResult).calls.map((receipt) => receipt.code) : []).toEqual(['ABORTED']);
  });

  it('reports a script error with the receipts of the calls made before it', async () => {
    const outcome = await runCode(registryFor(), `await tools.add({ a: 1, b: 1 }); throw new Error('bad ${SECRET}');`);
    const error = outcome.ok ? undefined : (outcome.error as CodeModeError);
    expect(error?.reason).toBe('script_error');
    expect(error?.message).toContain('Error: bad [redacted]');
    expect(error?.message).not.toContain(SECRET);
    expect(error?.calls.map((receipt) => receipt.tool)).toEqual(['add']);
  });

  it('refuses a direct model call to any other tool in code mode as UnknownToolError, before policy runs', async () => {
    const policy = countingPolicy();
    const hooked: string[] = [];
    const registry = createToolRegistry({
      tools: [addNumbers],
      presentAs: 'code',
      codeRuntime: runtime,
      policy,
      hooks: { preExecute: [(execution) => (hooked.push(execution.toolName), { kind: 'allow' })] },
    });
    const outcome = await registry.dispatch({ callId: 'x', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools: ['add', 'run_code'] });
    expect(outcome.ok ? undefined : [outcome.error.code, (outcome.error as { availableTools?: unknown }).availableTools]).toEqual(['UNKNOWN_TOOL', ['run_code']]);
    expect(policy.consulted).toEqual([]);
    expect(hooked).toEqual([]);
    // The same tool from inside a script is governed and runs.
    const nested = await registry.dispatch({ callId: 'y', name: 'run_code', arguments: { code: 'return (await tools.add({ a: 1, b: 2 })).sum;' } }, { grantedTools: ['add', 'run_code'] });
    expect(nested.ok ? (nested.value as RunCodeResult).value : nested.error.message).toBe(3);
    expect(policy.consulted).toEqual(['identity:run_code', 'arguments:run_code', 'identity:add', 'arguments:add']);
  });

  it('offers direct calls and run_code together in both mode, with no code-only rule', async () => {
    const registry = registryFor('both');
    const direct = await registry.dispatch({ callId: 'b1', name: 'add', arguments: { a: 2, b: 2 } }, { grantedTools: granted });
    expect(direct.ok ? direct.value : direct.error.code).toEqual({ sum: 4 });
    const scripted = await runCode(registry, 'return (await tools.add({ a: 2, b: 3 })).sum;');
    expect(scripted.ok ? (scripted.value as RunCodeResult).value : scripted.error.code).toBe(5);
  });

  it('never lets a script reach run_code itself, and native mode offers no run_code', async () => {
    const outcome = await runCode(registryFor(), 'try { await tools.run_code({ code: "return 1" }); } catch (error) { return error.code; }');
    expect(outcome.ok ? (outcome.value as RunCodeResult).value : outcome.error.code).toBe('UNKNOWN_TOOL');
    const native = await runCode(registryFor('native'), 'return 1;');
    expect(native.ok ? 'ok' : native.error.code).toBe('UNKNOWN_TOOL');
  });

  it('refuses hostile names and oversized arguments from a script without echoing them', async () => {
    const outcome = await runCode(
      registryFor(),
      `const seen = [];
       for (const name of ['../../etc/passwd', 'add@9.9.9', '__proto__', 'constructor', 'a name with spaces']) {
         try { await tools[name]({}); seen.push('ran'); } catch (error) { seen.push(error.code + ' ' + error.message); }
       }
       try { await tools.add({ a: 'x'.repeat(2 * 1024 * 1024), b: 1 }); } catch (error) { seen.push(error.name); }
       return seen;`,
    );
    const seen = (outcome.ok ? (outcome.value as RunCodeResult).value : outcome.error.message) as string[];
    expect(seen.slice(0, 5).every((entry) => entry.startsWith('UNKNOWN_TOOL '))).toBe(true);
    expect(seen[5]).toBe('RangeError');
    expect(JSON.stringify(seen)).not.toContain('passwd');
    expect(JSON.stringify(seen)).not.toContain('with spaces');
  });

  it('gives a script the model-facing content, not the raw value, when finalizeContent or a postExecute hook replaced it', async () => {
    const user = { id: 'u1', name: 'Ada', ssn: '078-05-1120' };
    const finalized = defineTool({
      name: 'get_user',
      description: 'Look up a user.',
      input: z.object({ id: z.string() }),
      dispatch: () => user,
      finalizeContent: ({ ok, value, content }) => (ok ? JSON.stringify({ id: (value as typeof user).id, name: (value as typeof user).name }) : content),
    });
    const script = 'const u = await tools.get_user({ id: "u1" }); return { type: typeof u, u };';
    const viaFinalize = await runCode(createToolRegistry({ tools: [finalized], presentAs: 'code', codeRuntime: runtime }), script, { grantedTools: ['run_code', 'get_user'] });
    expect(viaFinalize.ok ? (viaFinalize.value as RunCodeResult).value : viaFinalize.error.message).toEqual({ type: 'string', u: '{"id":"u1","name":"Ada"}' });
    expect(unwrapUntrusted(viaFinalize.content)).not.toContain('078-05');

    const plain = defineTool({ name: 'get_user', description: 'Look up a user.', input: z.object({ id: z.string() }), dispatch: () => user });
    const hooked = createToolRegistry({
      tools: [plain],
      presentAs: 'both',
      codeRuntime: runtime,
      hooks: { postExecute: [({ ok, toolName }) => (ok && toolName === 'get_user' ? { kind: 'accept', content: '{"id":"u1","ssn":"[withheld]"}' } : undefined)] },
    });
    const direct = await hooked.dispatch({ callId: 'd1', name: 'get_user', arguments: { id: 'u1' } }, { grantedTools: ['run_code', 'get_user'] });
    const viaHook = await runCode(hooked, script, { grantedTools: ['run_code', 'get_user'] });
    expect(viaHook.ok ? (viaHook.value as RunCodeResult).value : viaHook.error.message).toEqual({ type: 'string', u: unwrapUntrusted(direct.content) });
    expect(unwrapUntrusted(viaHook.content)).not.toContain('078-05');

    // A hook that replaces the value (not the content) still hands the script a value.
    const revalued = createToolRegistry({
      tools: [plain],
      presentAs: 'code',
      codeRuntime: runtime,
      hooks: { postExecute: [({ ok, toolName }) => (ok && toolName === 'get_user' ? { kind: 'accept', value: { id: 'u1', name: 'Ada' } } : undefined)] },
    });
    const viaValue = await runCode(revalued, script, { grantedTools: ['run_code', 'get_user'] });
    expect(viaValue.ok ? (viaValue.value as RunCodeResult).value : viaValue.error.message).toEqual({ type: 'object', u: { id: 'u1', name: 'Ada' } });
  });

  it('still gives a script the full value when only bounding truncated what the model sees', async () => {
    const big = defineTool({ name: 'big', description: 'A large result.', input: z.object({}), dispatch: () => ({ rows: Array.from({ length: 4000 }, (_, index) => `row ${index}`) }) });
    const registry = createToolRegistry({ tools: [big], presentAs: 'both', codeRuntime: runtime });
    const direct = await registry.dispatch({ callId: 'd1', name: 'big', arguments: {} }, { grantedTools: ['run_code', 'big'], limits: { maxBytes: 4096 } });
    expect(unwrapUntrusted(direct.content)).toContain('[toolgate: output truncated');
    const outcome = await runCode(registry, 'const r = await tools.big({}); return [typeof r, r.rows.length, r.rows[3999]];', { grantedTools: ['run_code', 'big'], limits: { maxBytes: 4096 } });
    expect(outcome.ok ? (outcome.value as RunCodeResult).value : outcome.error.message).toEqual(['object', 4000, 'row 3999']);
  });

  it('refuses a result nested deeper than the JSON depth bound from any runtime, as result_invalid', async () => {
    let deep: unknown = 1;
    for (let index = 0; index < 100_000; index += 1) deep = [deep];
    const fake: CodeRuntime = { language: 'javascript', maxTimeoutMs: 1_000, run: () => Promise.resolve({ ok: true, value: deep, console: { lines: [], truncated: false } }) };
    const outcome = await runCode(createToolRegistry({ tools: [addNumbers], presentAs: 'code', codeRuntime: fake }), 'return 1;');
    expect(outcome.ok ? 'ok' : outcome.error).toMatchObject({ code: 'EXECUTION_FAILED', reason: 'result_invalid' });
    expect(outcome.ok ? '' : outcome.error.message).toContain('deeper than 64');
  });

  it('a scope that restricts everything else still reaches run_code (it cannot be masked)', async () => {
    const scoped = registryFor('native').scope('agent-1', { presentAs: 'code', restrict: { allow: ['add'] } });
    const outcome = await runCode(scoped, 'const r = await tools.add({ a: 1, b: 1 }); try { await tools.save_note({ title: "t", body: "b" }); } catch (error) { return [r.sum, error.code]; }');
    expect(outcome.ok ? (outcome.value as RunCodeResult).value : outcome.error.message).toEqual([2, 'UNKNOWN_TOOL']);
  });
});
