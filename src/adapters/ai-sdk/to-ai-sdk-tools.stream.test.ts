import { streamText, type ModelMessage, type UIMessageChunk } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createNotesFixture, NOTES_GRANT } from '../__fixtures__/notes-registry.js';
import { toAISDKTools } from './to-ai-sdk-tools.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function streamed(parts: unknown[]) {
  return { stream: convertArrayToReadableStream([{ type: 'stream-start', warnings: [] }, ...parts] as never[]) };
}

async function chunks(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const collected: UIMessageChunk[] = [];
  for await (const chunk of stream) collected.push(chunk);
  return collected;
}

describe('toAISDKTools with streamText (the stream useChat renders)', () => {
  it('streams the approval request to the UI, then the approved result', async () => {
    const { registry, host, receipts } = createNotesFixture();
    const tools = toAISDKTools(registry, { grantedTools: NOTES_GRANT });
    const model = new MockLanguageModelV3({
      doStream: [
        streamed([
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'write_note', input: JSON.stringify({ path: 'notes/a.txt', text: 'hello' }) },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
        ]),
        streamed([
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: 'Written.' },
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
        ]),
      ],
    });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Write a note.' }];

    const first = streamText({ model, tools, messages });
    const ui = await chunks(first.toUIMessageStream());
    const request = ui.find((chunk) => chunk.type === 'tool-approval-request');
    expect(request).toMatchObject({ type: 'tool-approval-request', toolCallId: 'call-1' });
    expect(host.files.has('notes/a.txt')).toBe(false);

    const approval = request as { approvalId: string };
    messages.push(...(await first.response).messages, { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: approval.approvalId, approved: true }] });
    const second = streamText({ model, tools, messages });
    const resumed = await chunks(second.toUIMessageStream());
    expect(resumed).toContainEqual(expect.objectContaining({ type: 'tool-output-available', toolCallId: 'call-1', output: 'wrote 5 bytes to notes/a.txt' }));
    expect(await second.text).toBe('Written.');
    expect(host.files.get('notes/a.txt')).toBe('hello');
    expect(receipts.map((receipt) => [receipt.status, receipt.approval.how])).toEqual([['ok', 'pre-approved']]);
  });
});
