// Runs against the built package (npm test builds first). A model names the tool it calls, and a framework looks
// the name up in the tool set it was given. A name no toolgate tool has must come back to the model as an unknown
// tool, never be taken for a tool the application runs itself.
import { generateText, streamText } from 'ai';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { createToolRegistry, defineTool, type ToolReceipt } from 'toolgate';
import { toAISDKTools } from 'toolgate/ai-sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const callTurn = (toolName: string) => ({
  content: [{ type: 'tool-call' as const, toolCallId: 'c1', toolName, input: '{"text":"hi"}' }],
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
});
const textTurn = { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };

function echo() {
  const registry = createToolRegistry({ tools: [defineTool({ name: 'echo', description: 'Echo a text.', input: z.object({ text: z.string() }), dispatch: (args) => args.text })] });
  const receipts: ToolReceipt[] = [];
  registry.on('tool-result', (event) => void receipts.push(event.receipt));
  return { tools: toAISDKTools(registry, { grantedTools: ['echo'] }), receipts };
}

// Every name an ordinary object answers for without holding it.
const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

describe('AI SDK: names the tool set does not hold', () => {
  it.each(INHERITED)('answers a call of "%s" as an unknown tool and goes on, as for any other name', async (name) => {
    const { tools, receipts } = echo();
    const model = new MockLanguageModelV3({ doGenerate: [callTurn(name), textTurn] });
    const result = await generateText({ model, tools, prompt: 'Echo hi.', stopWhen: () => false });
    const call = result.steps[0]?.content.find((part) => part.type === 'tool-call') as { invalid?: boolean; error?: Error } | undefined;
    expect(call?.invalid).toBe(true);
    expect(call?.error?.name).toBe('AI_NoSuchToolError');
    expect(result.steps[0]?.content).toContainEqual(expect.objectContaining({ type: 'tool-error', toolName: name }));
    // The model is told and answers; the call is not left to the application as a tool of its own.
    expect(result.text).toBe('done');
    expect(result.steps.at(-1)?.toolCalls ?? []).toEqual([]);
    expect(receipts).toEqual([]);
  });

  it('streams a call of an inherited name as an unknown tool too', async () => {
    const { tools } = echo();
    const chunks = [
      { type: 'tool-call' as const, toolCallId: 'c1', toolName: 'constructor', input: '{"text":"hi"}' },
      { type: 'finish' as const, finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' }, usage },
    ];
    const model = new MockLanguageModelV3({ doStream: { stream: convertArrayToReadableStream(chunks) } });
    const parts: { type: string }[] = [];
    for await (const part of streamText({ model, tools, prompt: 'Echo hi.' }).fullStream) parts.push(part);
    expect(parts).toContainEqual(expect.objectContaining({ type: 'tool-error', toolName: 'constructor' }));
  });
});
