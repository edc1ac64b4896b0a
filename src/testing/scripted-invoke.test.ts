import { describe, expect, it } from 'vitest';
import type { FakeHostCall, FakeScript } from './create-fake-host.js';
import { createScriptedInvoke } from './scripted-invoke.js';

const setup = (scripts: Record<string, FakeScript[]> = {}) => {
  const calls: FakeHostCall[] = [];
  return { calls, invoke: createScriptedInvoke(calls, new Map(Object.entries(scripts))) };
};

describe('createScriptedInvoke', () => {
  it('records every call, frozen, and answers from the fallback without a script', async () => {
    const { calls, invoke } = setup();
    const args: unknown[] = ['a.txt'];
    expect(await invoke('fs', 'readFile', args, undefined, () => 'fallback')).toBe('fallback');
    args.push('changed later');
    expect(calls).toMatchObject([{ capability: 'fs', method: 'readFile', args: ['a.txt'] }]);
    expect(Object.isFrozen(calls[0])).toBe(true);
  });

  it('takes the scripted answers in order, the last one repeating', async () => {
    const { invoke } = setup({ 'os.readClipboard': [{ result: 'first' }, { respond: (...args: unknown[]) => `echo ${String(args[0])}` }] });
    const read = () => invoke('os', 'readClipboard', ['x'], undefined, () => 'fallback');
    expect([await read(), await read(), await read()]).toEqual(['first', 'echo x', 'echo x']);
  });

  it('throws a scripted fault as it is, non-Error values included', async () => {
    const { invoke } = setup({ 'mcp.call': [{ fault: 'plain string' }] });
    await expect(invoke('mcp', 'call', [], undefined, () => undefined)).rejects.toBe('plain string');
  });

  it('cuts a scripted delay short when the signal aborts, with the signal reason', async () => {
    const { invoke } = setup({ 'egress.fetch': [{ delayMs: 10_000, result: 'late' }] });
    const controller = new AbortController();
    const pending = invoke('egress', 'fetch', [], controller.signal, () => undefined);
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    controller.abort();
    await expect(invoke('egress', 'fetch', [], controller.signal, () => undefined)).rejects.toBe(reason);
  });

  it('wraps an abort reason that is no error in an AbortError', async () => {
    const { invoke } = setup();
    const controller = new AbortController();
    controller.abort('stop');
    await expect(invoke('os', 'notify', [], controller.signal, () => undefined)).rejects.toMatchObject({ name: 'AbortError', cause: 'stop' });
  });
});
