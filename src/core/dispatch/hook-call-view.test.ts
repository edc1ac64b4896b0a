import { describe, expect, it } from 'vitest';
import type { DispatchState } from './dispatch-state.js';
import { hookCallView } from './hook-call-view.js';

function stateOf(resolved: { key: string; version: string | undefined; delegatesTo?: 'mcp' } | undefined): DispatchState {
  const tool = resolved === undefined ? undefined : { key: resolved.key, version: resolved.version, policyView: { delegatesTo: resolved.delegatesTo } };
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

  it('carries what the tool declares it delegates to, so a guard judges the fact rather than the name', () => {
    expect(hookCallView(stateOf({ key: 'reach_upstream', version: undefined, delegatesTo: 'mcp' }), undefined).delegatesTo).toBe('mcp');
    expect(hookCallView(stateOf({ key: 'mcp_call', version: undefined }), undefined).delegatesTo).toBeUndefined();
  });

  it('names the asked tool when none resolved, and never the raw arguments', () => {
    const view = hookCallView(stateOf(undefined), undefined);
    expect(view.toolName).toBe('asked_name');
    expect(view.toolVersion).toBeUndefined();
    expect(view.arguments).toEqual({ path: 'a.txt' });
    expect(view.signal).toBeUndefined();
  });
});
