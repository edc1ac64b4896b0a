import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScriptedApprover, recordEvents } from '../../testing/index.js';
import type { ToolApprovalRequest } from '../policy/approval-types.js';
import { defineTool } from '../tools/define-tool.js';
import { isCutViewBody, MAX_VIEW_BODY } from './request-approval.js';
import { addTool, fetchTool, harness, memoryJournal, notifyTool, readFileTool, runCommandTool, SECRET, writeFileTool } from './__fixtures__/pipeline-fixtures.js';

const all = [addTool, fetchTool, notifyTool, readFileTool, runCommandTool, writeFileTool];
const grantedTools = all.map((tool) => tool.name);
const code = (outcome: { ok: boolean; error?: { code: string } }): string => (outcome.ok ? 'OK' : (outcome.error?.code ?? '?'));

/** A governed tool whose card shows its `text` whole, and an approver that approves it. */
function longViewTool(): { approver: ReturnType<typeof createScriptedApprover>; registry: ReturnType<typeof harness>['registry'] } {
  const long = defineTool({
    name: 'long',
    description: 'A governed tool with a long view.',
    input: z.object({ text: z.string() }),
    policy: { os: true },
    presentCall: ({ text }) => ({ title: 'long', body: text }),
    dispatch: () => 'done',
  });
  return { approver: createScriptedApprover('approve'), registry: harness([long], { limits: { maxInputBytes: 1024 * 1024 } }).registry };
}

describe('approval (stage 9)', () => {
  it('governs fsWrite → fs_write, egress → egress, model-controlled process → process, os → os; reads are not governed', async () => {
    const approver = createScriptedApprover('approve');
    const { registry } = harness(all);
    const approval = { confirm: approver.confirm };
    await registry.dispatch({ callId: '1', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } }, { grantedTools, approval });
    await registry.dispatch({ callId: '2', name: 'fetch_url', arguments: { url: 'https://example.com/x' } }, { grantedTools, approval });
    await registry.dispatch({ callId: '3', name: 'run_command', arguments: { command: 'ls -la' } }, { grantedTools, approval });
    await registry.dispatch({ callId: '4', name: 'notify', arguments: { title: 'hi' } }, { grantedTools, approval });
    await registry.dispatch({ callId: '5', name: 'read_file', arguments: { path: 'a.txt' } }, { grantedTools, approval });
    await registry.dispatch({ callId: '6', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools, approval });
    expect(approver.requests.map((request) => [request.toolName, request.action])).toEqual([
      ['write_file', 'fs_write'],
      ['fetch_url', 'egress'],
      ['run_command', 'process'],
      ['notify', 'os'],
    ]);
  });

  it('the approver, the journal and the receipt see one projection of the arguments: redacted, frozen, computed once', async () => {
    const approver = createScriptedApprover('approve');
    const journal = memoryJournal();
    const { registry } = harness(all, { journal });
    const outcome = await registry.dispatch(
      { callId: 'p', name: 'write_file', arguments: { path: 'a.txt', content: `token=${SECRET}` } },
      { grantedTools, approval: { confirm: approver.confirm } },
    );
    expect(outcome.ok).toBe(true);
    const shown = approver.requests[0]?.arguments;
    expect(Object.isFrozen(shown)).toBe(true);
    expect(JSON.stringify(shown)).not.toContain(SECRET);
    expect(outcome.receipt.arguments).toBe(shown);
    expect(journal.prepared[0]?.arguments).toBe(shown);
  });

  it('a process tool without a model-controlled command is not governed', async () => {
    const gitStatus = defineTool({ name: 'git_status', description: 'git status', input: z.object({}), policy: { spawnsProcess: true }, dispatch: () => 'clean' });
    const approver = createScriptedApprover('reject');
    const { registry } = harness([gitStatus]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'git_status', arguments: {} }, { grantedTools: ['git_status'], approval: { confirm: approver.confirm } });
    expect(outcome.ok).toBe(true);
    expect(approver.requests).toHaveLength(0);
  });

  it('without a regime a governed call runs on author trust', async () => {
    const { registry, host } = harness(all);
    const outcome = await registry.dispatch({ callId: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } }, { grantedTools });
    expect(outcome.ok).toBe(true);
    expect(host.calls).toHaveLength(1);
  });

  it('hands the approver one frozen plain value: the whole request, rendered once, that it may spread, serialise or structuredClone', async () => {
    let rendered = 0;
    const shown = defineTool({
      name: 'shown',
      description: 'A governed tool that renders itself.',
      input: z.object({ title: z.string() }),
      policy: { os: true },
      presentCall: ({ title }) => {
        rendered += 1;
        return { title: `notify ${title}`, body: `token=${SECRET}` };
      },
      dispatch: () => 'done',
    });
    const seen: ToolApprovalRequest[] = [];
    const { registry } = harness([shown]);
    const outcome = await registry.dispatch(
      { callId: 'b', name: 'shown', arguments: { title: 'hi' } },
      { grantedTools: ['shown'], approval: { confirm: (request) => (seen.push(request), Promise.resolve({ outcome: 'approve' as const })) } },
    );
    expect(outcome.ok).toBe(true);
    expect(rendered).toBe(1);
    const request = seen[0] as ToolApprovalRequest;
    expect([request.toolName, request.action, request.why, request.decision.kind, request.actionDigest]).toEqual(['shown', 'os', 'governed', 'allow', outcome.receipt.actionDigest]);
    expect(Object.keys(request).sort()).toEqual(['action', 'actionDigest', 'agent', 'arguments', 'callId', 'decision', 'masked', 'preview', 'reasons', 'resolved', 'target', 'toolName', 'toolVersion', 'view', 'why']);
    const copy = { ...request };
    expect(copy.view?.body).toBe('token=[redacted]');
    expect(copy.masked).toBe(1);
    expect(copy.reasons.reason).toBe('governed');
    expect(JSON.parse(JSON.stringify(request)).view.title).toBe('notify hi');
    const cloned = structuredClone(request);
    expect(cloned.view?.title).toBe('notify hi');
    expect(cloned.actionDigest).toBe(request.actionDigest);
    expect(rendered).toBe(1);
    expect(Object.isFrozen(request)).toBe(true);
    expect(() => Object.assign(request, { actionDigest: 'f'.repeat(64) })).toThrow(TypeError);
    expect(() => Object.defineProperty(request, 'masked', { value: 0 })).toThrow(TypeError);
    expect([request.actionDigest, request.masked]).toEqual([outcome.receipt.actionDigest, 1]);
  });

  it('cuts a body longer than a card shows with a last line that says how much is left out, never silently', async () => {
    const { approver, registry } = longViewTool();
    const text = `${'a'.repeat(MAX_VIEW_BODY)}PAYLOAD`;
    await registry.dispatch({ callId: 'l', name: 'long', arguments: { text } }, { grantedTools: ['long'], approval: { confirm: approver.confirm } });
    const body = approver.requests[0]?.view?.body ?? '';
    expect(body.startsWith('a'.repeat(MAX_VIEW_BODY))).toBe(true);
    expect(body).not.toContain('PAYLOAD');
    expect(body.slice(MAX_VIEW_BODY)).toBe('\n… [7 more characters not shown]');
    expect(isCutViewBody(body)).toBe(true);
  });

  it('tells a cut body by its last line, though masking its secrets brought it under the length a card shows', async () => {
    const { approver, registry } = longViewTool();
    const text = `ghp_${'a'.repeat(36)} ghp_${'b'.repeat(36)}\n${'a'.repeat(MAX_VIEW_BODY)}PAYLOAD`;
    await registry.dispatch({ callId: 'l', name: 'long', arguments: { text } }, { grantedTools: ['long'], approval: { confirm: approver.confirm } });
    const body = approver.requests[0]?.view?.body ?? '';
    expect(body.length).toBeLessThanOrEqual(MAX_VIEW_BODY);
    expect(isCutViewBody(body)).toBe(true);
    expect(isCutViewBody(`${'a'.repeat(10)}\n`)).toBe(false);
  });

  it('the preview and every event are secret-free; the resolved action holds the raw value and never reaches an event', async () => {
    const approver = createScriptedApprover('approve');
    const { registry } = harness(all);
    const recording = recordEvents(registry);
    const command = `curl -H Authorization: Bearer ${SECRET} https://api.example.com`;
    await registry.dispatch({ callId: 'c', name: 'run_command', arguments: { command, token: SECRET } }, { grantedTools, approval: { confirm: approver.confirm } });
    const request = approver.requests[0];
    expect(request).toBeDefined();
    if (request === undefined) return;
    expect(JSON.stringify(request.preview)).not.toContain(SECRET);
    expect(JSON.stringify(request.arguments)).not.toContain(SECRET);
    expect(request.preview.command).toContain('[redacted]');
    expect(request.resolved?.command?.argv.join(' ')).toContain(SECRET);
    expect(request.masked).toBeGreaterThan(0);
    const requested = recording.of('approval-requested');
    expect(requested).toHaveLength(1);
    expect(requested[0]?.preview).toEqual(request.preview);
    const everything = JSON.stringify(recording.events);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('"resolved"');
  });

  it('an egress preview shows the method and the full URL, with a secret query value masked where it stands', async () => {
    const approver = createScriptedApprover('approve');
    const { registry } = harness(all);
    await registry.dispatch({ callId: 'c', name: 'fetch_url', arguments: { url: 'https://api.example.com/v1/repos?page=2&key=abcd1234secret' } }, { grantedTools, approval: { confirm: approver.confirm } });
    const request = approver.requests[0];
    expect(request?.preview).toEqual({ host: 'api.example.com', request: 'GET https://api.example.com/v1/repos?page=2&key=[redacted]' });
    expect(request?.target?.http).toEqual({ method: 'GET', url: 'https://api.example.com/v1/repos?page=2&key=[redacted]', host: 'api.example.com', port: 443 });
    expect(request?.masked).toBe(1);
    expect(JSON.stringify(request?.arguments)).not.toContain('abcd1234secret');
  });

  it('fails closed: no confirm hook → no_approval_hook; a throwing hook → approval_error; reject → user_rejected', async () => {
    const { registry, host } = harness(all);
    const args = { callId: 'c', name: 'write_file', arguments: { path: 'a', content: 'b' } };
    const none = await registry.dispatch(args, { grantedTools, approval: {} });
    const broken = await registry.dispatch(args, { grantedTools, approval: { confirm: createScriptedApprover('throw').confirm } });
    const rejected = await registry.dispatch(args, { grantedTools, approval: { confirm: createScriptedApprover({ outcome: 'reject', reason: `no ${SECRET}` }).confirm } });
    expect([none, broken, rejected].map((outcome) => (outcome.ok ? 'OK' : [outcome.error.code, (outcome.error as { reason?: string }).reason]))).toEqual([
      ['DENIED_BY_USER', 'no_approval_hook'],
      ['DENIED_BY_USER', 'approval_error'],
      ['DENIED_BY_USER', 'user_rejected'],
    ]);
    for (const outcome of [none, broken, rejected]) {
      if (outcome.ok) continue;
      expect(outcome.error.retryable || outcome.error.recoverable || outcome.error.loopCorrectable).toBe(false);
      expect(outcome.error.message).not.toContain(SECRET);
      expect(outcome.receipt.status).toBe('denied');
    }
    expect(host.calls).toEqual([]);
  });

  it('a pre-approved action digest (from registry.prepare) skips the prompt; a different argument is refused', async () => {
    const { registry, host } = harness(all);
    const call = { callId: 'c', name: 'write_file', arguments: { path: 'a.txt', content: 'approved' } };
    const plan = await registry.prepare(call, { grantedTools, approval: {} });
    expect(plan.status).toBe('approval_required');
    const approvedActionDigests = [plan.actionDigest as string];
    const ok = await registry.dispatch(call, { grantedTools, approval: { approvedActionDigests } });
    expect(ok.ok).toBe(true);
    expect(ok.receipt.approval).toMatchObject({ outcome: 'approve', how: 'pre-approved' });
    expect(ok.receipt.actionDigest).toBe(plan.actionDigest);
    const changed = await registry.dispatch({ ...call, arguments: { path: 'a.txt', content: 'tampered' } }, { grantedTools, approval: { approvedActionDigests } });
    expect(changed.ok ? 'OK' : changed.error).toMatchObject({ code: 'DENIED_BY_USER', reason: 'approval_mismatch' });
    const otherAgent = await registry.dispatch(call, { grantedTools, agent: 'mallory', approval: { approvedActionDigests } });
    expect(code(otherAgent)).toBe('DENIED_BY_USER');
    expect(host.calls).toHaveLength(1);
  });

  it('a policy ask is serviced by the approver and recorded in the receipt with its rule', async () => {
    const { recordingPolicy } = await import('./__fixtures__/pipeline-fixtures.js');
    const policy = recordingPolicy({ arguments: () => ({ kind: 'ask', reason: 'high risk', matched: [{ id: 'ask-big', source: 'policy.yaml', decision: 'ask' }] }) });
    const approver = createScriptedApprover({ outcome: 'approve', by: 'alice', scope: 'once' });
    const { registry } = harness(all, { policy, journal: memoryJournal() });
    const outcome = await registry.dispatch({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools, approval: { confirm: approver.confirm } });
    expect(outcome.ok).toBe(true);
    expect(approver.requests[0]?.why).toBe('rule');
    expect(outcome.receipt.policy).toMatchObject({ decision: 'ask', version: 7, rules: [{ id: 'ask-big', source: 'policy.yaml', decision: 'ask' }] });
    expect(outcome.receipt.approval).toMatchObject({ outcome: 'approve', how: 'confirm:alice', scope: 'once' });
    expect(typeof outcome.receipt.approval.at).toBe('number');
  });
});
