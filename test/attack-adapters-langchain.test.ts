// Runs against the built package (npm test builds first). LangChain's chat models parse the arguments a model wrote
// with JSON.parse, so a model that writes them as a JSON string or a number (`"\"{...}\""`, `7`) hands the tool a tool
// call whose `args` is not an object. The whole tool call ({ type, id, name, args }) was then dispatched as the
// arguments: a tool with a `name` or an `id` parameter ran on the tool's own name and the model's call id, under an id
// of toolgate's own, and the loop got a bare string instead of a ToolMessage for the call.
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { createToolRegistry, defineTool, type ToolReceipt } from 'toolgate';
import { toLangChainTools } from 'toolgate/langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

function branches() {
  const deleted: unknown[] = [];
  const deleteBranch = defineTool({
    name: 'delete_branch',
    description: 'Delete a branch by name.',
    input: z.object({ name: z.string().optional(), id: z.string().optional() }),
    dispatch: (args) => {
      deleted.push(args);
      return `deleted ${args.name ?? args.id ?? 'nothing'}`;
    },
  });
  const registry = createToolRegistry({ tools: [deleteBranch] });
  const receipts: ToolReceipt[] = [];
  registry.on('tool-result', (event) => void receipts.push(event.receipt));
  return { tools: toLangChainTools(registry, { grantedTools: ['delete_branch'] }), deleted, receipts };
}

describe('LangChain: a tool call whose args are not an object', () => {
  it.each([['a number', 7], ['a string that is not JSON', 'main'], ['null', null]])('answers %s with a ToolMessage for the call, never running on the tool call itself', async (_label, args) => {
    const { tools, deleted, receipts } = branches();
    // What a chat model's reply holds once LangChain parsed the arguments the model wrote.
    const reply = new AIMessage({ content: '', tool_calls: [{ type: 'tool_call', id: 'call-7', name: 'delete_branch', args: args as never }] });
    const call = reply.tool_calls?.[0];
    const message = (await tools[0]?.invoke(call)) as unknown;
    expect(ToolMessage.isInstance(message)).toBe(true);
    expect((message as ToolMessage).tool_call_id).toBe('call-7');
    expect(deleted).not.toContainEqual(expect.objectContaining({ name: 'delete_branch' }));
    expect(deleted).not.toContainEqual(expect.objectContaining({ id: 'call-7' }));
    expect(receipts.map((receipt) => receipt.callId)).toEqual(['call-7']);
  });

  it('reads a string of JSON as the arguments it holds, as toolgate reads arguments text', async () => {
    const { tools, deleted } = branches();
    const message = (await tools[0]?.invoke({ type: 'tool_call', id: 'call-8', name: 'delete_branch', args: '{"name":"old-feature"}' as never })) as ToolMessage;
    expect([message.tool_call_id, message.status, message.content]).toEqual(['call-8', 'success', 'deleted old-feature']);
    expect(deleted).toEqual([{ name: 'old-feature' }]);
  });
});
