// toolgate inside the Vercel AI SDK: `node examples/ai-sdk.mjs`.
// The model is the AI SDK's own mock so this runs offline; use any provider model instead.
import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { recordAISDKRejections, toAISDKTools } from 'toolgate/ai-sdk';
import { createNotesRegistry } from './notes-registry.mjs';

const { registry, host } = createNotesRegistry();
const context = { agent: 'writer', grantedTools: ['write_note'] };
const tools = toAISDKTools(registry, context);

const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };
const call = (id, path, text) => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'write_note', input: JSON.stringify({ path, text }) }],
  finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
  usage,
  warnings: [],
});
const model = new MockLanguageModelV3({
  doGenerate: [call('call-1', 'notes/a.txt', 'hello'), call('call-2', 'notes/b.txt', 'again'), { content: [{ type: 'text', text: 'Done.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }],
});

// The human's answers, in order: approve the first write, decline the second.
const answers = [true, false];
const messages = [{ role: 'user', content: 'Write two notes.' }];
for (;;) {
  const result = await generateText({ model, tools, messages });
  const requests = result.content.filter((part) => part.type === 'tool-approval-request');
  if (requests.length === 0) {
    console.log(`model: ${result.text}`);
    break;
  }
  messages.push(...result.response.messages, {
    role: 'tool',
    content: requests.map((request) => {
      const approved = answers.shift() ?? false;
      console.log(`approval: ${request.toolCall.toolName} ${JSON.stringify(request.toolCall.input)} -> ${approved ? 'approved' : 'denied'}`);
      return { type: 'tool-approval-response', approvalId: request.approvalId, approved, ...(approved ? {} : { reason: 'declined' }) };
    }),
  });
  // The AI SDK answers a denial itself; this records it in toolgate (receipt, events).
  await recordAISDKRejections(registry, messages, context);
}
console.log(`files: ${[...host.files.keys()].join(', ')}`);
