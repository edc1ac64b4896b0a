// Runs against the built package (npm test builds first). Frameworks keep a person's approval by call id, and the
// model chooses call ids. A model that sends two calls under one id in one response (a note the person is happy with,
// and a write they would refuse) gets two approval cards with that one id: whatever the person answers on either
// card approves the id, and the adapter must not let that approval run a call the person did not approve.
import { Agent, run, setTracingDisabled, Usage, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import { createToolRegistry, defineTool, requireCapability, type ToolReceipt } from 'toolgate';
import { toOpenAIAgentsTools } from 'toolgate/openai-agents';
import { createFakeHost } from 'toolgate/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

beforeAll(() => setTracingDisabled(true));

function notes() {
  const host = createFakeHost();
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Write a note to a file in the workspace.',
    input: z.object({ path: z.string().max(200), text: z.string().max(2000) }),
    policy: { fsScoped: true, fsWrite: true },
    policyTarget: (args) => ({ path: args.path }),
    dispatch: async (args, toolHost, context) => {
      const written = await requireCapability(toolHost, 'fs', 'write_note').writeFile(args.path, args.text, {}, context.signal);
      return `wrote ${written.bytes} bytes to ${args.path}`;
    },
  });
  const listNotes = defineTool({ name: 'list_notes', description: 'List the notes.', input: z.object({}), dispatch: () => [...host.files.keys()].join('\n') });
  const registry = createToolRegistry({ tools: [writeNote, listNotes], host });
  const receipts: ToolReceipt[] = [];
  registry.on('tool-result', (event) => void receipts.push(event.receipt));
  return { registry, host, receipts, context: { grantedTools: ['write_note', 'list_notes'] } };
}

type Call = { callId: string; name: string; input: unknown };

/** The SDK's Model seam, scripted: each turn is the function calls (or the text) of one model response. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  #turn = 0;
  constructor(private readonly turns: readonly (readonly Call[] | string)[]) {}
  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.turns[this.#turn] ?? 'done';
    this.#turn += 1;
    const output =
      typeof turn === 'string'
        ? [{ type: 'message' as const, id: `msg-${this.#turn}`, role: 'assistant' as const, status: 'completed' as const, content: [{ type: 'output_text' as const, text: turn }] }]
        : turn.map((call, index) => ({ type: 'function_call' as const, id: `fc-${this.#turn}-${index}`, callId: call.callId, name: call.name, arguments: JSON.stringify(call.input), status: 'completed' as const }));
    return Promise.resolve({ usage: new Usage(), output });
  }
  // eslint-disable-next-line require-yield -- streaming is not used by these runs
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

const evil = { callId: 'call-1', name: 'write_note', input: { path: 'notes/evil.txt', text: 'pwned' } };
const benign = { callId: 'call-1', name: 'write_note', input: { path: 'notes/a.txt', text: 'hello' } };

describe('OpenAI Agents: two calls under one call id', () => {
  it('runs neither call when the person approves one card and rejects the other', async () => {
    const { registry, host, context } = notes();
    const agent = new Agent({ name: 'writer', model: new ScriptedModel([[evil, benign]]), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(agent, 'Write a note.');
    const cards = interrupted.interruptions;
    // The person reads each card, rejects the write to notes/evil.txt and approves the note.
    for (const item of cards) {
      if ((item.arguments ?? '').includes('evil')) interrupted.state.reject(item);
      else interrupted.state.approve(item);
    }
    await run(agent, interrupted.state);
    expect(host.files.has('notes/evil.txt')).toBe(false);
  });

  it('runs neither call when the person approves only the card they were happy with', async () => {
    const { registry, host, context } = notes();
    const agent = new Agent({ name: 'writer', model: new ScriptedModel([[evil, benign]]), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(agent, 'Write a note.');
    const card = interrupted.interruptions.find((item) => !(item.arguments ?? '').includes('evil'));
    if (card !== undefined) interrupted.state.approve(card);
    await run(agent, interrupted.state);
    expect(host.files.has('notes/evil.txt')).toBe(false);
  });
});

describe('AI SDK: two calls under one call id', () => {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const turn = (calls: readonly Call[]) => ({
    content: calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.callId, toolName: call.name, input: JSON.stringify(call.input) })),
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage,
    warnings: [],
  });
  const text = { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };

  it('runs only a call the person was shown and approved', async () => {
    const { generateText } = await import('ai');
    const { MockLanguageModelV3 } = await import('ai/test');
    const { toAISDKTools } = await import('toolgate/ai-sdk');
    const { registry, host, context } = notes();
    const tools = toAISDKTools(registry, context);
    const model = new MockLanguageModelV3({ doGenerate: [turn([evil, benign]), text, text] });
    const messages: import('ai').ModelMessage[] = [{ role: 'user', content: 'Write a note.' }];
    const first = await generateText({ model, tools, messages });
    const cards = first.content.filter((part) => part.type === 'tool-approval-request');
    // The person approves each card that shows the note, as the card's own tool call reads.
    messages.push(...first.response.messages, {
      role: 'tool',
      content: cards.map((card) => ({ type: 'tool-approval-response' as const, approvalId: card.approvalId, approved: !JSON.stringify(card.toolCall.input).includes('evil') })),
    });
    // The card the AI SDK hands the application shows the note; the tool call it keeps in the messages is the other.
    expect(cards.map((card) => card.toolCall.input)).toEqual([benign.input]);
    await generateText({ model, tools, messages });
    expect(host.files.has('notes/evil.txt')).toBe(false);
  });
});

describe('OpenAI Agents: a run restored into a fresh tool set', () => {
  it("runs only the call whose digest the application kept with the person's approval", async () => {
    const { RunState } = await import('@openai/agents');
    const { planInterruption } = await import('toolgate/openai-agents');
    const { registry, host, receipts, context } = notes();
    const before = new Agent({ name: 'writer', model: new ScriptedModel([[evil, benign]]), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(before, 'Write a note.');
    // As the durable flow says: the person approves the card they read, and its digest is stored with the approval.
    const card = interrupted.interruptions.find((item) => !(item.arguments ?? '').includes('evil'));
    if (card === undefined) throw new Error('expected the note’s card');
    const kept = (await planInterruption(registry, card, context)).actionDigest;
    interrupted.state.approve(card);
    const saved = interrupted.state.toString();

    const tools = toOpenAIAgentsTools(registry, { ...context, approval: { approvedActionDigests: [kept ?? ''] } });
    const after = new Agent({ name: 'writer', model: new ScriptedModel(['done']), tools });
    await run(after, await RunState.fromString(after, saved));
    expect(host.files.has('notes/evil.txt')).toBe(false);
    expect(host.files.get('notes/a.txt')).toBe('hello');
    expect(receipts.filter((receipt) => receipt.status === 'ok').map((receipt) => receipt.actionDigest)).toEqual([kept]);
  });

  it('does not run arguments edited in the stored run when the application kept the approved digest', async () => {
    const { RunState } = await import('@openai/agents');
    const { planInterruption } = await import('toolgate/openai-agents');
    const { registry, host, context } = notes();
    const before = new Agent({ name: 'writer', model: new ScriptedModel([[benign]]), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(before, 'Write a note.');
    const card = interrupted.interruptions[0]!;
    const kept = (await planInterruption(registry, card, context)).actionDigest;
    interrupted.state.approve(card);
    const saved = interrupted.state.toString().replaceAll('notes/a.txt', 'notes/evil.txt');

    const tools = toOpenAIAgentsTools(registry, { ...context, approval: { approvedActionDigests: [kept ?? ''] } });
    const after = new Agent({ name: 'writer', model: new ScriptedModel(['done']), tools });
    await run(after, await RunState.fromString(after, saved));
    expect(host.files.has('notes/evil.txt')).toBe(false);
  });
});

describe('streamed runs: two calls under one call id', () => {
  // streamText keeps and runs the call its card shows, so the pinned digest held here before; it holds with the id spent too.
  it('AI SDK streamText (what useChat renders) runs neither', async () => {
    const { streamText } = await import('ai');
    const { MockLanguageModelV3, convertArrayToReadableStream } = await import('ai/test');
    const { toAISDKTools } = await import('toolgate/ai-sdk');
    const { registry, host, context } = notes();
    const tools = toAISDKTools(registry, context);
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    };
    const streamed = (parts: unknown[]) => ({ stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, ...parts] as never[]) });
    const done = streamed([{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'done' }, { type: 'text-end', id: 't' }, { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage }]);
    const model = new MockLanguageModelV3({
      doStream: [
        streamed([
          ...[evil, benign].map((call) => ({ type: 'tool-call', toolCallId: call.callId, toolName: call.name, input: JSON.stringify(call.input) })),
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
        ]),
        done,
      ],
    });
    const messages: import('ai').ModelMessage[] = [{ role: 'user', content: 'Write a note.' }];
    const first = streamText({ model, tools, messages });
    const ui: { type: string; approvalId?: string }[] = [];
    for await (const chunk of first.toUIMessageStream()) ui.push(chunk);
    const cards = ui.filter((chunk) => chunk.type === 'tool-approval-request');
    messages.push(...(await first.response).messages, {
      role: 'tool',
      content: cards.map((card) => ({ type: 'tool-approval-response' as const, approvalId: card.approvalId ?? '', approved: true })),
    });
    const second = streamText({ model, tools, messages });
    await second.consumeStream();
    expect(host.files.has('notes/evil.txt')).toBe(false);
    expect(host.calls).toHaveLength(0);
  });

  it('OpenAI Agents run({ stream: true }) runs neither', async () => {
    const { registry, host, context } = notes();
    const model = new ScriptedModel([[evil, benign]]);
    // The streamed run reads the same scripted response as one completed response event.
    Object.assign(model, {
      async *getStreamedResponse(request: ModelRequest) {
        const response = await model.getResponse(request);
        yield { type: 'response_done', response: { id: `r-${model.requests.length}`, usage: { requests: 1, inputTokens: 0, outputTokens: 0, totalTokens: 0 }, output: response.output } };
      },
    });
    const agent = new Agent({ name: 'writer', model, tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(agent, 'Write a note.', { stream: true });
    await interrupted.completed;
    expect(interrupted.interruptions.length).toBeGreaterThan(0);
    const card = interrupted.interruptions.find((item) => !(item.arguments ?? '').includes('evil'));
    if (card !== undefined) interrupted.state.approve(card);
    const resumed = await run(agent, interrupted.state, { stream: true });
    await resumed.completed;
    expect(host.files.has('notes/evil.txt')).toBe(false);
    expect(host.calls).toHaveLength(0);
  });
});

describe("OpenAI Agents: a standing approval given on one of the cards a reply raised", () => {
  const note = { callId: 'call-1', name: 'write_note', input: { path: 'notes/a.txt', text: 'hello' } };
  const other = { callId: 'call-2', name: 'write_note', input: { path: 'notes/evil.txt', text: 'pwned' } };

  it('does not run the card the person rejected', async () => {
    const { rejectInterruption } = await import('toolgate/openai-agents');
    const { registry, host, context } = notes();
    const agent = new Agent({ name: 'writer', model: new ScriptedModel([[note, other]]), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(agent, 'Write a note.');
    const [first, second] = interrupted.interruptions;
    interrupted.state.approve(first!, { alwaysApprove: true });
    await rejectInterruption(registry, interrupted.state, second!, { context, reason: 'not that one' });
    await run(agent, interrupted.state);
    expect(host.files.has('notes/evil.txt')).toBe(false);
  });

  it('does not run the card the person rejected when a call that needs no card stands between them', async () => {
    const { registry, host, context } = notes();
    const list = (callId: string) => ({ callId, name: 'list_notes', input: {} });
    const agent = new Agent({ name: 'writer', model: new ScriptedModel([[list('call-l1'), note, list('call-l2'), other, list('call-l3')]]), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(agent, 'Write a note.');
    const [first, second] = interrupted.interruptions;
    interrupted.state.approve(first!, { alwaysApprove: true });
    interrupted.state.reject(second!);
    await run(agent, interrupted.state);
    expect(host.files.has('notes/evil.txt')).toBe(false);
  });

  it('still runs the one card of a later reply that the person always-approved after rejecting an earlier one', async () => {
    const { registry, host, context } = notes();
    const agent = new Agent({ name: 'writer', model: new ScriptedModel([[other], [note]]), tools: toOpenAIAgentsTools(registry, context) });
    const first = await run(agent, 'Write a note.');
    first.state.reject(first.interruptions[0]!);
    const second = await run(agent, first.state);
    second.state.approve(second.interruptions[0]!, { alwaysApprove: true });
    await run(agent, second.state);
    expect(host.files.has('notes/evil.txt')).toBe(false);
    expect(host.files.get('notes/a.txt')).toBe('hello');
  });

  it('does not run a card the person left unanswered', async () => {
    const { registry, host, context } = notes();
    const agent = new Agent({ name: 'writer', model: new ScriptedModel([[note, other]]), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(agent, 'Write a note.');
    interrupted.state.approve(interrupted.interruptions[0]!, { alwaysApprove: true });
    await run(agent, interrupted.state);
    expect(host.files.has('notes/evil.txt')).toBe(false);
  });
});

describe('OpenAI Agents: a flood of calls under shared ids', () => {
  it('does not let a run reuse an id that already ran on its approval', async () => {
    const { registry, host, context } = notes();
    const flood = Array.from({ length: 1025 }, (_, index) => [
      { callId: `dup-${index}`, name: 'write_note', input: { path: `notes/x${index}.txt`, text: 'a' } },
      { callId: `dup-${index}`, name: 'write_note', input: { path: `notes/y${index}.txt`, text: 'b' } },
    ]).flat();
    const reused = { callId: 'call-1', name: 'write_note', input: { path: 'notes/evil.txt', text: 'pwned' } };
    const agent = new Agent({ name: 'writer', model: new ScriptedModel([[benign], flood, [reused]]), tools: toOpenAIAgentsTools(registry, context) });
    const first = await run(agent, 'Write a note.');
    first.state.approve(first.interruptions[0]!);
    // The note runs; the model then sends two calls under each of 1,025 ids, and the person refuses every card.
    const second = await run(agent, first.state);
    expect(host.files.get('notes/a.txt')).toBe('hello');
    for (const item of second.interruptions) second.state.reject(item);
    // The SDK keeps the approval of call-1 for the whole run and runs a later call under that id without asking.
    await run(agent, second.state);
    expect(host.files.has('notes/evil.txt')).toBe(false);
  }, 120_000);

  it('runs neither of two calls under one id that a reply of more cards than the tool set keeps pushed out', async () => {
    const { registry, host, context } = notes();
    const flood = Array.from({ length: 1024 }, (_, index) => [
      { callId: `dup-${index}`, name: 'write_note', input: { path: `notes/x${index}.txt`, text: 'a' } },
      { callId: `dup-${index}`, name: 'write_note', input: { path: `notes/y${index}.txt`, text: 'b' } },
    ]).flat();
    const agent = new Agent({ name: 'writer', model: new ScriptedModel([[evil, benign, ...flood]]), tools: toOpenAIAgentsTools(registry, context) });
    const interrupted = await run(agent, 'Write a note.');
    // The person approves the note's card and refuses every other one.
    for (const item of interrupted.interruptions) {
      if ((item.arguments ?? '').includes('notes/a.txt')) interrupted.state.approve(item);
      else interrupted.state.reject(item);
    }
    await run(agent, interrupted.state);
    expect(host.files.has('notes/evil.txt')).toBe(false);
  }, 120_000);
});
