import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createConfirm, createToolRegistry, defineTool, ToolgateError } from '../../core/internal.js';
import { createNotesFixture, NOTES_GRANT } from '../__fixtures__/notes-registry.js';
import { ToolOutcomeError } from '../shared/outcome-error.js';
import { recordAISDKRejections, toAISDKTools } from './to-ai-sdk-tools.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function toolCallTurn(toolCallId: string, toolName: string, input: unknown) {
  return {
    content: [{ type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

function textTurn(text: string) {
  return { content: [{ type: 'text' as const, text }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };
}

function approvalId(content: readonly { type: string }[]): string {
  const request = content.find((part) => part.type === 'tool-approval-request') as { approvalId: string } | undefined;
  if (request === undefined) throw new Error('expected a tool approval request');
  return request.approvalId;
}

/** The prompt the model saw on its nth call, as tool-result parts. */
function toolResultsSeen(model: MockLanguageModelV3, call: number): unknown[] {
  const prompt = model.doGenerateCalls[call]?.prompt ?? [];
  return prompt.filter((message) => message.role === 'tool').flatMap((message) => message.content as unknown[]);
}

describe('toAISDKTools', () => {
  it('runs the two-step approval flow: approved once, the next call denied, both receipted', async () => {
    const { registry, host, journal, receipts } = createNotesFixture();
    const context = { agent: 'writer', grantedTools: NOTES_GRANT };
    const tools = toAISDKTools(registry, context);
    const model = new MockLanguageModelV3({
      doGenerate: [
        toolCallTurn('call-1', 'write_note', { path: 'notes/a.txt', text: 'hello' }),
        toolCallTurn('call-2', 'write_note', { path: 'notes/b.txt', text: 'again' }),
        textTurn('One note written; the second was declined.'),
      ],
    });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write two notes.' }];

    // Step 1: the model calls the governed tool; toolgate asks through the AI SDK's approval flow.
    const first = await generateText({ model, tools, messages });
    expect(first.content.some((part) => part.type === 'tool-approval-request')).toBe(true);
    expect(host.files.has('notes/a.txt')).toBe(false);
    messages.push(...first.response.messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approvalId(first.content), approved: true }] });

    // Step 2: the human approved once; the call runs; the model calls again and toolgate asks again.
    const second = await generateText({ model, tools, messages });
    expect(host.files.get('notes/a.txt')).toBe('hello');
    expect(toolResultsSeen(model, 1)).toEqual([expect.objectContaining({ type: 'tool-result', toolCallId: 'call-1', output: { type: 'text', value: 'wrote 5 bytes to notes/a.txt' } })]);
    expect(second.content.some((part) => part.type === 'tool-approval-request')).toBe(true);
    messages.push(...second.response.messages, {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: approvalId(second.content), approved: false, reason: 'not this one' }],
    });

    // Step 3: the human denied; toolgate records the rejection, the model sees the denial as a tool result.
    const recorded = await recordAISDKRejections(registry, messages, context);
    expect(recorded.map((outcome) => [outcome.ok, !outcome.ok && outcome.error.code])).toEqual([[false, 'DENIED_BY_USER']]);
    const third = await generateText({ model, tools, messages });
    expect(third.text).toBe('One note written; the second was declined.');
    expect(toolResultsSeen(model, 2)).toContainEqual(expect.objectContaining({ type: 'tool-result', toolCallId: 'call-2', output: { type: 'execution-denied', reason: 'not this one' } }));
    expect(host.files.has('notes/b.txt')).toBe(false);

    expect(receipts.map((receipt) => [receipt.callId, receipt.status, receipt.code, receipt.approval.outcome])).toEqual([
      ['call-1', 'ok', 'OK', 'approve'],
      ['call-2', 'denied', 'DENIED_BY_USER', 'reject'],
    ]);
    expect(receipts[0]?.approval.how).toBe('pre-approved');
    expect(receipts[0]?.agent).toBe('writer');
    expect(journal.settled.map((entry) => entry.receipt.callId)).toEqual(['call-1']);
  });

  it('runs an approved call once: a replayed request carrying the same approval is refused', async () => {
    const { registry, host, receipts } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const model = new MockLanguageModelV3({ doGenerate: [toolCallTurn('call-1', 'write_note', { path: 'notes/a.txt', text: 'hello' }), textTurn('done'), textTurn('done again')] });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write a note.' }];
    const first = await generateText({ model, tools, messages });
    messages.push(...first.response.messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approvalId(first.content), approved: true }] });

    await generateText({ model, tools, messages });
    // A client retry (or a hostile client) sends the approved request again: the AI SDK executes the approved call again.
    await generateText({ model, tools, messages });
    expect(host.calls).toHaveLength(1);
    expect(toolResultsSeen(model, 2)).toEqual([
      expect.objectContaining({ toolCallId: 'call-1', output: { type: 'error-text', value: 'Tool "write_note" needs an approval, but no approval hook is wired (denied, fail closed).' } }),
    ]);
    expect(receipts.map((receipt) => [receipt.callId, receipt.code])).toEqual([
      ['call-1', 'OK'],
      ['call-1', 'DENIED_BY_USER'],
    ]);
  });

  it('runs neither input when one step holds two calls under one id: the card shows one, the messages keep the other', async () => {
    const { registry, host, receipts } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const twoUnderOneId = {
      ...toolCallTurn('call-x', 'write_note', { path: 'notes/a.txt', text: 'hello' }),
      content: [
        { type: 'tool-call' as const, toolCallId: 'call-x', toolName: 'write_note', input: JSON.stringify({ path: 'notes/a.txt', text: 'hello' }) },
        { type: 'tool-call' as const, toolCallId: 'call-x', toolName: 'write_note', input: JSON.stringify({ path: 'notes/evil.txt', text: 'pwned' }) },
      ],
    };
    const model = new MockLanguageModelV3({ doGenerate: [twoUnderOneId, textTurn('done')] });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write a note.' }];
    const first = await generateText({ model, tools, messages });
    const requests = first.content.filter((part) => part.type === 'tool-approval-request');
    messages.push(...first.response.messages, {
      role: 'tool',
      content: requests.map((request, index) => ({ type: 'tool-approval-response' as const, approvalId: request.approvalId, approved: index === 0 })),
    });
    await generateText({ model, tools, messages });
    // The AI SDK raises one request for the id: its card shows the second input, and the messages keep (and run) the first.
    expect(requests).toHaveLength(1);
    expect(requests[0]?.toolCall.input).toEqual({ path: 'notes/evil.txt', text: 'pwned' });
    expect(first.response.messages[0]?.content).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'tool-call', input: { path: 'notes/a.txt', text: 'hello' } })]));
    expect(host.files.has('notes/a.txt')).toBe(false);
    expect(host.files.has('notes/evil.txt')).toBe(false);
    expect(host.calls).toHaveLength(0);
    expect(receipts.map((receipt) => [receipt.callId, receipt.code])).toEqual([['call-x', 'DENIED_BY_USER']]);
  });

  it("puts the framework's approval behind the application's mode logic: in plan mode an approved call still does not run", async () => {
    const { registry, host, receipts } = createNotesFixture();
    const approvals = createConfirm({ mode: 'plan', prompt: () => Promise.reject(new Error('the framework is the person here')) });
    const context = { agent: 'writer', grantedTools: NOTES_GRANT, approval: { confirm: approvals.confirm } };
    const tools = toAISDKTools(registry, context);
    const model = new MockLanguageModelV3({ doGenerate: [toolCallTurn('call-p', 'write_note', { path: 'notes/p.txt', text: 'plan' }), textTurn('done')] });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write a note.' }];
    const first = await generateText({ model, tools, messages });
    messages.push(...first.response.messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approvalId(first.content), approved: true }] });
    await generateText({ model, tools, messages });
    expect(host.files.has('notes/p.txt')).toBe(false);
    expect(receipts.map((receipt) => [receipt.callId, receipt.code, receipt.approval.how])).toEqual([['call-p', 'DENIED_BY_USER', 'confirm:mode:plan']]);

    // In ask mode the same framework approval is the person's answer, bound to the action it was given for.
    approvals.setMode('ask');
    const again = new MockLanguageModelV3({ doGenerate: [toolCallTurn('call-a', 'write_note', { path: 'notes/a.txt', text: 'ask' }), textTurn('done')] });
    const next: ModelMessage[] = [{ role: 'user', content: 'Write a note.' }];
    const asked = await generateText({ model: again, tools, messages: next });
    next.push(...asked.response.messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approvalId(asked.content), approved: true }] });
    await generateText({ model: again, tools, messages: next });
    expect(host.files.get('notes/a.txt')).toBe('ask');
    expect(receipts.at(-1)?.approval).toMatchObject({ outcome: 'approve', how: 'confirm:framework' });
  });

  it('turns a toolgate denial into a tool error the model sees', async () => {
    const { registry, host, receipts } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const model = new MockLanguageModelV3({ doGenerate: [toolCallTurn('call-w', 'wipe_notes', {}), textTurn('Could not wipe.')] });
    const result = await generateText({ model, tools, prompt: 'Wipe everything.', stopWhen: () => false });
    expect(result.text).toBe('Could not wipe.');
    const seen = toolResultsSeen(model, 1) as { toolCallId: string; output: { type: string; value: string } }[];
    expect(seen).toHaveLength(1);
    expect(seen[0]?.output.type).toBe('error-text');
    expect(seen[0]?.output.value).toBe('Tool "wipe_notes" is not granted to this caller.');
    expect(host.calls).toHaveLength(0);
    expect(receipts.map((receipt) => [receipt.status, receipt.code])).toEqual([['denied', 'POLICY_DENIED']]);
  });

  it('feeds a plain (ungoverned) call straight through, untrusted content placed as the result', async () => {
    const { registry } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const model = new MockLanguageModelV3({ doGenerate: [toolCallTurn('call-r', 'read_note', { path: 'notes/todo.txt' }), textTurn('It says buy milk.')] });
    const result = await generateText({ model, tools, prompt: 'Read my todo.', stopWhen: () => false });
    expect(result.text).toBe('It says buy milk.');
    expect(toolResultsSeen(model, 1)).toEqual([expect.objectContaining({ toolCallId: 'call-r', output: { type: 'text', value: 'buy milk' } })]);
  });

  it('fails closed when a governed call runs without the framework approving it', async () => {
    const { registry, host } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const execute = tools.write_note?.execute;
    if (execute === undefined) throw new Error('write_note has no execute');
    const run = Promise.resolve(execute({ path: 'notes/x.txt', text: 'x' }, { toolCallId: 'direct', messages: [] }));
    await expect(run).rejects.toBeInstanceOf(ToolOutcomeError);
    await expect(run).rejects.toMatchObject({ code: 'DENIED_BY_USER', outcome: { error: { reason: 'no_approval_hook' } } });
    // One error base: a framework's handler can tell a toolgate failure by the shared brand and read its flags.
    const thrown: unknown = await run.catch((error: unknown) => error);
    expect(ToolgateError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ name: 'ToolOutcomeError', code: 'DENIED_BY_USER', tool: ((thrown as ToolgateError).cause as ToolgateError).tool });
    expect(host.files.has('notes/x.txt')).toBe(false);
  });

  it('binds the approval to the action it was raised for: a swapped input is denied', async () => {
    const { registry, host } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const tool = tools.write_note;
    if (tool?.execute === undefined || typeof tool.needsApproval !== 'function') throw new Error('write_note is not governed');
    expect(await tool.needsApproval({ path: 'notes/a.txt', text: 'safe' }, { toolCallId: 'c1', messages: [] })).toBe(true);
    const approved: ModelMessage[] = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'write_note', input: { path: 'notes/a.txt', text: 'EVIL' } }, { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' }] },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] },
    ];
    const run = Promise.resolve(tool.execute({ path: 'notes/a.txt', text: 'EVIL' }, { toolCallId: 'c1', messages: approved }));
    await expect(run).rejects.toMatchObject({ code: 'DENIED_BY_USER', outcome: { error: { reason: 'approval_mismatch' } } });
    expect(host.files.has('notes/a.txt')).toBe(false);
  });

  it('does not take an approval for another call, or an automatic one, as this call’s approval', async () => {
    const { registry, host } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const execute = tools.write_note?.execute;
    if (execute === undefined) throw new Error('write_note has no execute');
    const input = { path: 'notes/a.txt', text: 'x' };
    // AI SDK 7 marks an approval its own configuration gave; the adapter must never take it for a person's.
    const automatic = { type: 'tool-approval-request' as const, approvalId: 'a-auto', toolCallId: 'auto', isAutomatic: true };
    const messages: ModelMessage[] = [
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'other', toolName: 'write_note', input },
          { type: 'tool-approval-request', approvalId: 'a-other', toolCallId: 'other' },
          { type: 'tool-call', toolCallId: 'auto', toolName: 'write_note', input },
          automatic,
        ],
      },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a-other', approved: true }, { type: 'tool-approval-response', approvalId: 'a-auto', approved: true }] },
    ];
    for (const toolCallId of ['mine', 'auto']) {
      await expect(Promise.resolve(execute(input, { toolCallId, messages }))).rejects.toMatchObject({ code: 'DENIED_BY_USER' });
    }
    expect(host.files.has('notes/a.txt')).toBe(false);
  });

  it('threads the AI SDK abort signal into the call', async () => {
    const { registry, host } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const execute = tools.read_note?.execute;
    if (execute === undefined) throw new Error('read_note has no execute');
    host.script('fs.readFile', { delayMs: 5_000, result: { content: 'late', bytes: 4, partial: false } });
    const controller = new AbortController();
    const run = Promise.resolve(execute({ path: 'notes/todo.txt' }, { toolCallId: 'slow', messages: [], abortSignal: controller.signal }));
    setTimeout(() => controller.abort(new Error('user pressed stop')), 20);
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
    const aborted = Promise.resolve(execute({ path: 'notes/todo.txt' }, { toolCallId: 'pre', messages: [], abortSignal: AbortSignal.abort() }));
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED_BEFORE_DISPATCH' });
  });

  it('does not ask when the application pre-approved the exact digest', async () => {
    const { registry, host } = createNotesFixture();
    const call = { callId: 'p1', name: 'write_note', arguments: { path: 'notes/p.txt', text: 'pre' } };
    const plan = await registry.prepare(call, { grantedTools: NOTES_GRANT, approval: {} });
    expect(plan.status).toBe('approval_required');
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT, approval: { approvedActionDigests: [plan.actionDigest ?? ''] } });
    const tool = tools.write_note;
    if (tool?.execute === undefined || typeof tool.needsApproval !== 'function') throw new Error('write_note is not governed');
    expect(await tool.needsApproval(call.arguments, { toolCallId: 'p1', messages: [] })).toBe(false);
    expect(await tool.execute(call.arguments, { toolCallId: 'p1', messages: [] })).toBe('wrote 3 bytes to notes/p.txt');
    expect(host.files.get('notes/p.txt')).toBe('pre');
  });
  it('denies an approved call whose action changed before it ran (configuration swapped after approval)', async () => {
    const sendReport = defineTool({
      name: 'send_report',
      description: 'Send the weekly report to the configured recipient.',
      input: z.object({ week: z.number().int(), recipient: z.string() }),
      configOnly: ['recipient'],
      policy: { os: true },
      dispatch: (args: { week: number; recipient: string }) => `sent week ${args.week} to ${args.recipient}`,
    });
    const registry = createToolRegistry({ tools: [sendReport] });
    const values: Record<string, unknown> = { recipient: 'alice@example.com' };
    const tools = toAISDKTools(registry, { grantedTools: ['send_report'], config: { values } });
    const model = new MockLanguageModelV3({ doGenerate: [toolCallTurn('call-r', 'send_report', { week: 7 }), textTurn('It was refused.')] });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Send the report.' }];
    const first = await generateText({ model, tools, messages });
    messages.push(...first.response.messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approvalId(first.content), approved: true }] });

    values.recipient = 'mallory@example.com';
    const second = await generateText({ model, tools, messages });
    expect(second.text).toBe('It was refused.');
    const seen = toolResultsSeen(model, 1) as { output: { type: string; value: string } }[];
    expect(seen[0]?.output).toEqual({ type: 'error-text', value: 'Tool "send_report" was refused: its arguments differ from the approved action.' });
  });
  it('works with signed approvals, and the AI SDK refuses an approval whose input was altered', async () => {
    const { registry, host } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const secret = 'approval-signing-secret';
    const model = new MockLanguageModelV3({ doGenerate: [toolCallTurn('call-s', 'write_note', { path: 'notes/a.txt', text: 'hello' }), textTurn('Written.')] });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write a note.' }];
    const first = await generateText({ model, tools, messages, experimental_toolApprovalSecret: secret });
    const answer: ModelMessage = { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approvalId(first.content), approved: true }] };

    // A client that swaps the approved input is caught by the AI SDK's signature check.
    const altered = structuredClone(first.response.messages).map((message) =>
      message.role === 'assistant' && typeof message.content !== 'string'
        ? { ...message, content: message.content.map((part) => (part.type === 'tool-call' ? { ...part, input: { path: 'notes/a.txt', text: 'EVIL' } } : part)) }
        : message,
    );
    await expect(generateText({ model, tools, messages: [...messages, ...altered, answer], experimental_toolApprovalSecret: secret })).rejects.toThrow(/signature/i);
    expect(host.files.has('notes/a.txt')).toBe(false);

    const resumed = await generateText({ model, tools, messages: [...messages, ...first.response.messages, answer], experimental_toolApprovalSecret: secret });
    expect(resumed.text).toBe('Written.');
    expect(host.files.get('notes/a.txt')).toBe('hello');
  });
  it('lets toolgate validate arguments: a bad one is a receipted ARGS_INVALID tool error the model can correct', async () => {
    const { registry, receipts } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const model = new MockLanguageModelV3({ doGenerate: [toolCallTurn('call-bad', 'read_note', { path: 42 }), textTurn('Let me fix that.')] });
    const result = await generateText({ model, tools, prompt: 'Read note 42.', stopWhen: () => false });
    expect(result.text).toBe('Let me fix that.');
    const seen = toolResultsSeen(model, 1) as { output: { type: string; value: string } }[];
    expect(seen[0]?.output.type).toBe('error-text');
    expect(seen[0]?.output.value).toMatch(/^Invalid arguments for tool "read_note"/);
    expect(receipts.map((receipt) => [receipt.callId, receipt.code])).toEqual([['call-bad', 'ARGS_INVALID']]);
  });
});
