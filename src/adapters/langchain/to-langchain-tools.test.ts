import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { StructuredTool } from '@langchain/core/tools';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { describe, expect, it } from 'vitest';
import { createScriptedApprover } from '../../testing/index.js';
import { createNotesFixture, NOTES_GRANT } from '../__fixtures__/notes-registry.js';
import { ToolOutcomeError } from '../shared/outcome-error.js';
import { toLangChainTools } from './to-langchain-tools.js';

type Turn = { calls: { id: string; name: string; args: Record<string, unknown> }[] } | { text: string };

/**
 * A tool-calling loop over LangChain's fake chat model: each turn is one
 * FakeStreamingChatModel bound to the tools; every message list a model
 * call received is kept, so tests see exactly what the model saw.
 */
async function runLoop(tools: StructuredTool[], turns: readonly Turn[], prompt: string): Promise<{ transcript: BaseMessage[]; seen: BaseMessage[][] }> {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const transcript: BaseMessage[] = [new HumanMessage(prompt)];
  const seen: BaseMessage[][] = [];
  for (const turn of turns) {
    const model = new FakeStreamingChatModel(
      'calls' in turn ? { chunks: [new AIMessageChunk({ content: '', tool_calls: turn.calls.map((call) => ({ ...call, type: 'tool_call' as const })) })] } : { responses: [new AIMessage(turn.text)] },
    ).bindTools(tools);
    seen.push([...transcript]);
    const reply = await model.invoke(transcript);
    transcript.push(reply);
    for (const call of reply.tool_calls ?? []) {
      const tool = byName.get(call.name);
      if (tool === undefined) throw new Error(`no tool ${call.name}`);
      transcript.push((await tool.invoke(call)) as ToolMessage);
    }
  }
  return { transcript, seen };
}

function toolMessages(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
}

describe('toLangChainTools', () => {
  it('runs the two-step loop: toolgate asks, approved once, the next call denied, both receipted', async () => {
    const { registry, host, journal, receipts } = createNotesFixture();
    const approver = createScriptedApprover('approve', { outcome: 'reject', reason: 'one note is enough' });
    const tools = toLangChainTools(registry, { agent: 'writer', grantedTools: NOTES_GRANT, approval: { confirm: approver.confirm } });
    const { seen } = await runLoop(
      tools,
      [
        { calls: [{ id: 'call-1', name: 'write_note', args: { path: 'notes/a.txt', text: 'hello' } }] },
        { calls: [{ id: 'call-2', name: 'write_note', args: { path: 'notes/b.txt', text: 'again' } }] },
        { text: 'One note written; the second was declined.' },
      ],
      'Write two notes.',
    );

    expect(approver.requests.map((request) => [request.callId, request.action, request.preview.path])).toEqual([
      ['call-1', 'fs_write', 'notes/a.txt'],
      ['call-2', 'fs_write', 'notes/b.txt'],
    ]);
    expect(host.files.get('notes/a.txt')).toBe('hello');
    expect(host.files.has('notes/b.txt')).toBe(false);

    // What the model saw on its last call: the result and the denial, as proper ToolMessages.
    const results = toolMessages(seen[2] ?? []);
    expect(results.map((message) => [message.tool_call_id, message.name, message.status, message.content])).toEqual([
      ['call-1', 'write_note', 'success', 'wrote 5 bytes to notes/a.txt'],
      ['call-2', 'write_note', 'error', 'Tool "write_note" was rejected by the approver: one note is enough.'],
    ]);
    expect((results[1]?.artifact as { receipt: { code: string } }).receipt.code).toBe('DENIED_BY_USER');

    expect(receipts.map((receipt) => [receipt.callId, receipt.status, receipt.code, receipt.approval.outcome])).toEqual([
      ['call-1', 'ok', 'OK', 'approve'],
      ['call-2', 'denied', 'DENIED_BY_USER', 'reject'],
    ]);
    expect(journal.settled.map((entry) => entry.receipt.callId)).toEqual(['call-1']);
  });

  it('denies a governed call when no approval hook is wired (fail closed)', async () => {
    const { registry, host } = createNotesFixture();
    const [writeNote] = toLangChainTools(registry, { grantedTools: NOTES_GRANT }).filter((tool) => tool.name === 'write_note');
    const message = (await writeNote!.invoke({ type: 'tool_call', id: 'c1', name: 'write_note', args: { path: 'notes/x.txt', text: 'x' } })) as ToolMessage;
    expect(message.status).toBe('error');
    expect(message.content).toBe('Tool "write_note" needs an approval, but no approval hook is wired (denied, fail closed).');
    expect(host.files.has('notes/x.txt')).toBe(false);
  });

  it('turns a policy denial and arguments LangChain itself rejects into error ToolMessages with receipts', async () => {
    const { registry, receipts } = createNotesFixture();
    const tools = toLangChainTools(registry, { grantedTools: NOTES_GRANT });
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const wiped = (await byName.get('wipe_notes')!.invoke({ type: 'tool_call', id: 'w1', name: 'wipe_notes', args: {} })) as ToolMessage;
    expect([wiped.status, wiped.content]).toEqual(['error', 'Tool "wipe_notes" is not granted to this caller.']);
    const invalid = (await byName.get('read_note')!.invoke({ type: 'tool_call', id: 'r1', name: 'read_note', args: { path: 42 } })) as ToolMessage;
    expect(invalid.status).toBe('error');
    expect(invalid.tool_call_id).toBe('r1');
    expect(invalid.content).toMatch(/^Invalid arguments for tool "read_note"/);
    expect(receipts.map((receipt) => [receipt.callId, receipt.code])).toEqual([
      ['w1', 'POLICY_DENIED'],
      ['r1', 'ARGS_INVALID'],
    ]);
  });

  it('returns plain content for bare arguments and throws the typed failure', async () => {
    const { registry } = createNotesFixture();
    const byName = new Map(toLangChainTools(registry, { grantedTools: NOTES_GRANT }).map((tool) => [tool.name, tool]));
    expect(await byName.get('read_note')!.invoke({ path: 'notes/todo.txt' })).toBe('buy milk');
    await expect(byName.get('wipe_notes')!.invoke({})).rejects.toBeInstanceOf(ToolOutcomeError);
  });

  it('threads the LangChain abort signal into the call', async () => {
    const { registry, host } = createNotesFixture();
    const byName = new Map(toLangChainTools(registry, { grantedTools: NOTES_GRANT }).map((tool) => [tool.name, tool]));
    host.script('fs.readFile', { delayMs: 5_000, result: { content: 'late', bytes: 4, partial: false } });
    const controller = new AbortController();
    const pending = byName.get('read_note')!.invoke({ type: 'tool_call', id: 's1', name: 'read_note', args: { path: 'notes/todo.txt' } }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 20);
    const message = (await pending) as ToolMessage;
    expect(message.status).toBe('error');
    expect((message.artifact as { receipt: { code: string } }).receipt.code).toBe('ABORTED');
  });
});
