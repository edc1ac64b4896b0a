// toolgate inside LangChain: `node examples/langchain.mjs`.
// The chat model is LangChain's fake one so this runs offline; use any chat model with bindTools instead.
import { AIMessage, AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { toLangChainTools } from 'toolgate/langchain';
import { createNotesRegistry } from './notes-registry.mjs';

const { registry, host } = createNotesRegistry();
// LangChain core has no approval flow of its own, so toolgate asks through its confirm hook.
const answers = ['approve', 'reject'];
const confirm = async (request) => {
  const outcome = answers.shift() ?? 'reject';
  console.log(`approval: ${request.toolName} ${request.preview.path} -> ${outcome === 'approve' ? 'approved' : 'denied'}`);
  return outcome === 'approve' ? { outcome } : { outcome, reason: 'declined' };
};
const tools = toLangChainTools(registry, { agent: 'writer', grantedTools: ['write_note'], approval: { confirm } });
const byName = new Map(tools.map((tool) => [tool.name, tool]));

const toolTurn = (id, path, text) => ({ chunks: [new AIMessageChunk({ content: '', tool_calls: [{ id, name: 'write_note', args: { path, text }, type: 'tool_call' }] })] });
const turns = [toolTurn('call-1', 'notes/a.txt', 'hello'), toolTurn('call-2', 'notes/b.txt', 'again'), { responses: [new AIMessage('Done.')] }];

const messages = [new HumanMessage('Write two notes.')];
for (const turn of turns) {
  const reply = await new FakeStreamingChatModel(turn).bindTools(tools).invoke(messages);
  messages.push(reply);
  for (const call of reply.tool_calls ?? []) {
    const message = await byName.get(call.name).invoke(call);
    console.log(`tool message: ${message.tool_call_id} ${message.status} ${message.content}`);
    messages.push(message);
  }
}
console.log(`model: ${messages.at(-1).content}`);
console.log(`files: ${[...host.files.keys()].join(', ')}`);
