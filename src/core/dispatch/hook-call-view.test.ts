import { describe, expect, it } from 'vitest';
import type { DispatchState } from './dispatch-state.js';
import { hookCallView } from './hook-call-view.js';

function stateOf(tool: { key: string; version: string | undefined } | undefined): DispatchState {
  return {
    call: { callId: 'call-1', name: 'asked_name', rawArguments: { raw: true }, providerExecuted: false },
    tool,
    agent: 'planner',
    context: { parent: 'call-0' },
    effectiveArgs: { path: 'a.txt' },
  } as unknown as DispatchState;
}

describe('hookCallView', () => {
  it('names the resolved tool, its version, the agent, the parent and the effective arguments', () => {
    const signal = new AbortController().signal;
    expect(hookCallView(stateOf({ key: 'read_file@2', version: '2' }), signal)).toEqual({
      callId: 'call-1',
      toolName: 'read_file@2',
      toolVersion: '2',
      agent: 'planner',
      parent: 'call-0',
      arguments: { path: 'a.txt' },
      signal,
    });
  });

  it('names the asked tool when none resolved, and never the raw arguments', () => {
    const view = hookCallView(stateOf(undefined), undefined);
    expect(view.toolName).toBe('asked_name');
    expect(view.toolVersion).toBeUndefined();
    expect(view.arguments).toEqual({ path: 'a.txt' });
    expect(view.signal).toBeUndefined();
  });
});
