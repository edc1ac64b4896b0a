// Runs against the built package (npm test builds first). Frameworks pass on the tool call id the model wrote, and
// some models write their ids themselves: an empty one reached toolgate, which refuses a call without an id as the
// caller's mistake by throwing. One such call in a reply ended the application's whole generateText or run, the
// other calls of the reply with it, and left no receipt. It must be a tool call like any other: one outcome the
// model reads, one receipt, and never a framework approval, which the framework keeps by that empty id.
import { AIMessageChunk, type ToolMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { Agent, run, setTracingDisabled, Usage, type Model, type ModelResponse } from '@openai/agents';
import { generateText, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createToolRegistry, defineTool, requireCapability, type ToolReceipt } from 'toolgate';
import { toAISDKTools } from 'toolgate/ai-sdk';
import { toLangChainTools } from 'toolgate/langchain';
import { toOpenAIAgentsTools } from 'toolgate/openai-agents';
import { createFakeHost } from 'toolgate/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

beforeAll(() => setTracingDisabled(true));

function notes() {
  const host = createFakeHost({ files: { 'notes/todo.txt': 'buy milk' } });
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Write a note.',
    input: z.object({ path: z.string(), text: z.string() }),
    policy: { fsScoped: true, fsWrite: true },
    policyTarget: (args) => ({ path: args.path }),
    dispatch: async (args, toolHost, context) => {
      await requireCapability(toolHost, 'fs', 'write_note').writeFile(args.path, args.text, {}, context.signal);
      return `wrote ${args.path}`;
    },
  });
  const readNote = defineTool({
    name: 'read_note',
    description: 'Read a note.',
    input: z.object({ path: z.string() }),
    policy: { fsScoped: true },
    policyTarget: (args) => ({ path: args.path }),
    dispatch: async (args, toolHost, context) => (await requireCapability(toolHost, 'fs', 'read_note').readFile(args.path, {}, context.signal)).content,
  });
  const registry = createToolRegistry({ tools: [writeNote, readNote], host });
  const receipts: ToolReceipt[] = [];
  registry.on('tool-result', (event) => void receipts.push(event.receipt));
  return { registry, host, receipts, context: { grantedTools: ['write_note', 'read_note'] } };
}

const read = { name: 'read_note', input: { path: 'notes/todo.txt' } };
const write = { name: 'write_note', input: { path: 'notes/evil.txt', text: 'pwned' } };

describe('AI SDK: a tool call with an empty id', () => {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const turn = (calls: { id: string; name: string; input: unknown }[]) => ({
    content: calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: JSON.stringify(call.input) })),
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage,
    warnings: [],
  });
  const text = { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };

  it('runs as a call with one outcome and one receipt, beside the other calls of the reply', async () => {
    const { registry, receipts, context } = notes();
    const model = new MockLanguageModelV3({ doGenerate: [turn([{ id: '', ...read }, { id: 'c2', ...read }]), text] });
    const result = await generateText({ model, tools: toAISDKTools(registry, context), prompt: 'Read the note twice.', stopWhen: () => false });
    expect(result.text).toBe('done');
    expect(receipts.map((receipt) => receipt.code)).toEqual(['OK', 'OK']);
    expect(receipts.every((receipt) => receipt.callId.length > 0)).toBe(true);
  });

  it('never runs a governed one on the framework’s approval of the empty id', async () => {
    const { registry, host, context } = notes();
    const tools = toAISDKTools(registry, context);
    const model = new MockLanguageModelV3({ doGenerate: [turn([{ id: '', ...write }]), text, text] });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write a note.' }];
    const first = await generateText({ model, tools, messages });
    const cards = first.content.filter((part) => part.type === 'tool-approval-request');
    messages.push(...first.response.messages, { role: 'tool', content: cards.map((card) => ({ type: 'tool-approval-response' as const, approvalId: card.approvalId, approved: true })) });
    await generateText({ model, tools, messages });
    expect(host.files.has('notes/evil.txt')).toBe(false);
  });
});

class ScriptedModel implements Model {
  #turn = 0;
  constructor(private readonly calls: { id: string; name: string; input: unknown }[]) {}
  getResponse(): Promise<ModelResponse> {
    this.#turn += 1;
    const output =
      this.#turn === 1
        ? this.calls.map((call, index) => ({ type: 'function_call' as const, id: `fc-${index}`, callId: call.id, name: call.name, arguments: JSON.stringify(call.input), status: 'completed' as const }))
        : [{ type: 'message' as const, id: 'msg', role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: 'done' }] }];
    return Promise.resolve({ usage: new Usage(), output });
  }
  // eslint-disable-next-line require-yield -- streaming is not used by these runs
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

describe('OpenAI Agents: a function call with an empty call id', () => {
  it('runs as a call with one outcome and one receipt, beside the other calls of the reply', async () => {
    const { registry, receipts, context } = notes();
    const agent = new Agent({ name: 'reader', model: new ScriptedModel([{ id: '', ...read }, { id: 'c2', ...read }]), tools: toOpenAIAgentsTools(registry, context) });
    const result = await run(agent, 'Read the note twice.');
    expect(result.finalOutput).toBe('done');
    expect(receipts.map((receipt) => receipt.code)).toEqual(['OK', 'OK']);
  });

  it('never runs a governed one on the SDK’s approval of the empty id', async () => {
    const { registry, host, context } = notes();
    const agent = new Agent({ name: 'writer', model: new ScriptedModel([{ id: '', ...write }]), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(agent, 'Write a note.');
    for (const item of interrupted.interruptions) interrupted.state.approve(item);
    if (interrupted.interruptions.length > 0) await run(agent, interrupted.state);
    expect(host.files.has('notes/evil.txt')).toBe(false);
  });
});

describe('LangChain: a tool call with an empty id', () => {
  it('answers with a ToolMessage under that id and one receipt', async () => {
    const { registry, receipts, context } = notes();
    const tools = toLangChainTools(registry, context);
    const model = new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: '', tool_calls: [{ id: '', name: 'read_note', args: read.input, type: 'tool_call' }] })] }).bindTools(tools);
    const reply = await model.invoke('Read the note.');
    const call = reply.tool_calls?.[0];
    const message = (await tools.find((tool) => tool.name === call?.name)?.invoke(call)) as ToolMessage;
    expect([message.tool_call_id, message.status, message.content]).toEqual(['', 'success', 'buy milk']);
    expect(receipts.map((receipt) => receipt.code)).toEqual(['OK']);
  });
});
