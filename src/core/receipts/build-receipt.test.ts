import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScriptedApprover } from '../../testing/index.js';
import { harness, memoryJournal, runCommandTool, SECRET, writeFileTool } from '../dispatch/__fixtures__/pipeline-fixtures.js';
import { defineTool } from '../tools/define-tool.js';
import { summarize, tierOf } from './build-receipt.js';

describe('receipts', () => {
  it('carry the fields of a governed call and are deeply immutable', async () => {
    const { registry } = harness([writeFileTool], { journal: memoryJournal() });
    const approver = createScriptedApprover({ outcome: 'approve', by: 'alice' });
    const outcome = await registry.dispatch(
      { callId: 'c1', name: 'write_file', arguments: { path: 'notes/a.txt', content: 'hello' } },
      { grantedTools: ['write_file'], agent: 'planner', parent: 'p0', approval: { confirm: approver.confirm } },
    );
    const receipt = outcome.receipt;
    expect(receipt).toMatchObject({
      callId: 'c1',
      tool: 'write_file',
      version: undefined,
      agent: 'planner',
      parent: 'p0',
      status: 'ok',
      code: 'OK',
      affectedEntities: ['notes/a.txt'],
      policy: { decision: 'allow', version: 7, rules: [] },
      approval: { outcome: 'approve', how: 'confirm:alice' },
      effect: 'write',
      risk: 'medium',
      tier: 'T2',
    });
    expect(receipt.invocationId).toMatch(/^c1#/);
    expect(receipt.inputDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(receipt.actionDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof receipt.startedAt).toBe('number');
    expect(receipt.durationMs).toBeGreaterThanOrEqual(0);
    expect(Object.isFrozen(receipt)).toBe(true);
    expect(Object.isFrozen(receipt.policy)).toBe(true);
    expect(Object.isFrozen(receipt.affectedEntities)).toBe(true);
    expect(() => {
      (receipt as { status: string }).status = 'error';
    }).toThrow(TypeError);
    expect(outcome.receipt).toBe(receipt); // built once
  });

  it('carries exitCode for process results and the denial status', async () => {
    const { registry, host } = harness([runCommandTool]);
    host.script('process.spawn', { result: { exitCode: 3, signal: null, stdout: 'x', stderr: '', timedOut: false, truncated: false } });
    const ran = await registry.dispatch({ callId: 'c', name: 'run_command', arguments: { command: 'false' } }, { grantedTools: ['run_command'] });
    expect(ran.receipt).toMatchObject({ exitCode: 3, status: 'ok', tier: 'T3', affectedEntities: ['false'] });
    const denied = await registry.dispatch({ callId: 'c', name: 'run_command', arguments: { command: 'x' } }, {});
    expect(denied.receipt).toMatchObject({ status: 'denied', code: 'POLICY_DENIED', policy: { decision: 'none' } });
  });

  it('outputSummary is one line, redacted on the whole text before clipping', async () => {
    // The secret straddles the 200-character clip: clipping first would leak its head.
    const text = `${'a'.repeat(180)}\n${SECRET} trailing`;
    const tool = defineTool({ name: 'leak', description: 'Leaky.', input: z.object({}), dispatch: () => text });
    const { registry } = harness([tool]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'leak', arguments: {} }, { grantedTools: ['leak'] });
    const summary = outcome.receipt.outputSummary;
    expect(summary).not.toContain('\n');
    expect(summary).not.toContain(SECRET.slice(0, 12));
    expect(summary.length).toBeLessThanOrEqual(201);
    expect(summarize(`x ${SECRET}`)).toBe('x [redacted]');
  });

  it('argument projection: secrets redacted, secret keys hidden, [cyclic] only for ancestors', async () => {
    const { projectArguments } = await import('./project-arguments.js');
    const shared = { id: 1 };
    const cyclic: Record<string, unknown> = { name: 'root', left: shared, right: shared, key: SECRET, token: 'opaque-value' };
    cyclic.self = cyclic;
    const projected = projectArguments(cyclic, { secretKeys: new Set(['token']) }) as Record<string, unknown>;
    expect(projected).toEqual({ name: 'root', left: { id: 1 }, right: { id: 1 }, key: '[redacted]', token: '[redacted]', self: '[cyclic]' });
    expect(projectArguments({ blob: new Uint8Array(10) })).toEqual({ blob: '[binary 10 bytes]' });
    expect(projectArguments('x'.repeat(600), { maxString: 10 })).toBe('xxxxxxxxxx… [590 more characters]');
  });

  it('maps risk onto approval tiers', () => {
    expect([tierOf('read', 'low'), tierOf('write', 'low'), tierOf('write', 'medium'), tierOf('execute', 'high'), tierOf('external', 'critical')]).toEqual(['T0', 'T1', 'T2', 'T3', 'T4']);
  });
});
