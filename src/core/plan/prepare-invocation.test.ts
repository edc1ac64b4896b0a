import { describe, expect, it } from 'vitest';
import { addTool, grantAll, harness, recordingPolicy, runCommandTool, writeFileTool } from '../dispatch/__fixtures__/pipeline-fixtures.js';

const grantedTools = grantAll(addTool, runCommandTool, writeFileTool);

describe('registry.prepare (invocation plans)', () => {
  it('ready for an allowed, ungoverned call, with SHA-256 digests and nothing executed', async () => {
    const { registry, host } = harness([addTool]);
    const plan = await registry.prepare({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools });
    expect(plan).toMatchObject({ status: 'ready', toolName: 'add', policyVersion: 7 });
    expect(plan.inputDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(plan.actionDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(host.calls).toEqual([]);
  });

  it('approval_required for a governed call under a regime, or when a rule asks', async () => {
    const { registry } = harness([writeFileTool, addTool], { policy: recordingPolicy({ arguments: (input) => (input.tool.name === 'add' ? { kind: 'ask', matched: [] } : { kind: 'allow', matched: [] }) }) });
    const governed = await registry.prepare({ callId: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } }, { grantedTools, approval: {} });
    expect(governed).toMatchObject({ status: 'approval_required', action: 'fs_write' });
    const asked = await registry.prepare({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools, approval: {} });
    expect(asked.status).toBe('approval_required');
    const noRegime = await registry.prepare({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools });
    expect(noRegime.status).toBe('denied');
  });

  it('denied with the error (identity deny before parsing; invalid arguments; not granted)', async () => {
    const policy = recordingPolicy({ identity: (input) => (input.tool.name === 'run_command' ? { kind: 'deny', reason: 'rule_denied', matched: [] } : { kind: 'allow', matched: [] }) });
    const { registry } = harness([addTool, runCommandTool], { policy });
    const identity = await registry.prepare({ callId: 'c', name: 'run_command', arguments: 'not json' }, { grantedTools });
    expect(identity).toMatchObject({ status: 'denied', error: { code: 'POLICY_DENIED' }, inputDigest: undefined });
    const invalid = await registry.prepare({ callId: 'c', name: 'add', arguments: { a: 'x' } }, { grantedTools });
    expect(invalid).toMatchObject({ status: 'denied', error: { code: 'ARGS_INVALID' } });
    const ungranted = await registry.prepare({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, {});
    expect(ungranted).toMatchObject({ status: 'denied', error: { code: 'POLICY_DENIED', reason: 'not_granted' } });
  });

  it('the action digest binds tool, agent and input; the input digest ignores key order', async () => {
    const { registry } = harness([addTool]);
    const base = await registry.prepare({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools, agent: 'alice' });
    const reordered = await registry.prepare({ callId: 'other', name: 'add', arguments: '{"b":2,"a":1}' }, { grantedTools, agent: 'alice' });
    const otherAgent = await registry.prepare({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools, agent: 'bob' });
    const otherInput = await registry.prepare({ callId: 'c', name: 'add', arguments: { a: 1, b: 3 } }, { grantedTools, agent: 'alice' });
    expect(reordered.inputDigest).toBe(base.inputDigest);
    expect(reordered.actionDigest).toBe(base.actionDigest);
    expect(otherAgent.inputDigest).toBe(base.inputDigest);
    expect(otherAgent.actionDigest).not.toBe(base.actionDigest);
    expect(otherInput.actionDigest).not.toBe(base.actionDigest);
  });
});
