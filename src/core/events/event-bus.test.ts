import { describe, expect, it } from 'vitest';
import { createScriptedApprover, recordEvents } from '../../testing/index.js';
import { harness, memoryJournal, SECRET, writeFileTool } from '../dispatch/__fixtures__/pipeline-fixtures.js';
import { EventBus } from './event-bus.js';

describe('events', () => {
  it('a governed call emits every event, in order, with its payload', async () => {
    const { registry } = harness([writeFileTool], { journal: memoryJournal() });
    const recording = recordEvents(registry);
    const approver = createScriptedApprover('approve');
    await registry.dispatch(
      { callId: 'c1', name: 'write_file', arguments: { path: 'a.txt', content: `key=${SECRET}` } },
      { grantedTools: ['write_file'], agent: 'planner', approval: { confirm: approver.confirm }, limits: { maxBytes: 8 } },
    );
    expect(recording.types()).toEqual([
      'tool-call-requested',
      'policy-decided',
      'policy-decided',
      'approval-requested',
      'approval-resolved',
      'tool-call-started',
      'tool-call-finished',
      'output-spilled',
      'tool-result',
    ]);
    for (const { event } of recording.events) expect(event).toMatchObject({ callId: 'c1', toolName: 'write_file', agent: 'planner', parent: undefined });
    expect(recording.of('tool-call-requested')[0]?.toolInput).toEqual({ path: 'a.txt', content: 'key=[redacted]' });
    expect(recording.of('policy-decided').map((event) => [event.stage, event.decision.kind, event.policyVersion])).toEqual([
      ['identity', 'allow', 7],
      ['arguments', 'allow', 7],
    ]);
    expect(recording.of('approval-requested')[0]).toMatchObject({ action: 'fs_write', preview: { path: 'a.txt' } });
    expect(recording.of('approval-resolved')[0]?.decision).toEqual({ outcome: 'approve' });
    const result = recording.of('tool-result')[0];
    expect(result).toMatchObject({ ok: true, code: 'OK', receipt: { status: 'ok', callId: 'c1' } });
    expect(JSON.stringify(recording.events)).not.toContain(SECRET);
  });

  it('a failed call emits tool-call-failed with a secret-free error projection', async () => {
    const { registry, host } = harness([writeFileTool]);
    host.script('fs.writeFile', { fault: new Error(`boom ${SECRET}`) });
    const recording = recordEvents(registry);
    await registry.dispatch({ callId: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } }, { grantedTools: ['write_file'] });
    const failed = recording.of('tool-call-failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.error).toEqual({ name: 'ToolExecutionError', code: 'EXECUTION_FAILED', message: 'Tool "write_file" failed.', tool: 'write_file' });
  });

  it('a throwing listener is reported through observer-error and the dispatch is unaffected', async () => {
    const { registry } = harness([writeFileTool]);
    const reported: { event: string; error: unknown }[] = [];
    registry.on('observer-error', (event) => reported.push(event));
    registry.on('tool-call-started', () => {
      throw new Error('listener bug');
    });
    const outcome = await registry.dispatch({ callId: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } }, { grantedTools: ['write_file'] });
    expect(outcome.ok).toBe(true);
    expect(reported).toHaveLength(1);
    expect(reported[0]?.event).toBe('tool-call-started');
    expect((reported[0]?.error as Error).message).toBe('listener bug');
  });

  it('an unhandled listener error goes to reportError, never swallowed, never thrown', () => {
    const bus = new EventBus();
    const seen: unknown[] = [];
    const original = (globalThis as { reportError?: unknown }).reportError;
    (globalThis as { reportError?: unknown }).reportError = (error: unknown) => seen.push(error);
    try {
      bus.on('tool-call-started', () => {
        throw new Error('nobody listens');
      });
      expect(() => bus.emit('tool-call-started', { callId: 'c', toolName: 't', agent: undefined, parent: undefined, at: 0 })).not.toThrow();
    } finally {
      (globalThis as { reportError?: unknown }).reportError = original;
    }
    expect(seen).toHaveLength(1);
  });

  it('unsubscribing restores the silent path; has() and active reflect listeners', () => {
    const bus = new EventBus();
    expect(bus.active).toBe(false);
    const off = bus.on('tool-result', () => undefined);
    expect(bus.active && bus.has('tool-result')).toBe(true);
    off();
    off();
    expect(bus.active || bus.has('tool-result')).toBe(false);
    bus.on('observer-error', () => undefined);
    expect(bus.active).toBe(false);
  });
});
