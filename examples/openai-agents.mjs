// toolgate inside the OpenAI Agents SDK: `node examples/openai-agents.mjs`.
// The model is scripted so this runs offline; drop `model` to use OpenAI.
import { Agent, run, setTracingDisabled, Usage } from '@openai/agents';
import { planInterruption, rejectInterruption, toOpenAIAgentsTools } from 'toolgate/openai-agents';
import { createNotesRegistry } from './notes-registry.mjs';

setTracingDisabled(true);
const { registry, host } = createNotesRegistry();
const context = { agent: 'writer', grantedTools: ['write_note'] };
const agent = new Agent({
  name: 'writer',
  instructions: 'Write the notes the user asks for.',
  model: scriptedAgentsModel([
    { call: { callId: 'call-1', name: 'write_note', input: { path: 'notes/a.txt', text: 'hello' } } },
    { call: { callId: 'call-2', name: 'write_note', input: { path: 'notes/b.txt', text: 'again' } } },
    { text: 'Done.' },
  ]),
  tools: toOpenAIAgentsTools(registry, context),
});

// The human's answers, in order: approve the first write, decline the second.
const answers = [true, false];
let result = await run(agent, 'Write two notes.');
while (result.interruptions.length > 0) {
  for (const item of result.interruptions) {
    const plan = await planInterruption(registry, item, context);
    const approved = answers.shift() ?? false;
    console.log(`approval: ${plan.toolName} ${item.arguments} (${plan.reason}) -> ${approved ? 'approved' : 'denied'}`);
    if (approved) result.state.approve(item);
    else await rejectInterruption(registry, result.state, item, { context, reason: 'declined' });
  }
  result = await run(agent, result.state);
}
console.log(`model: ${result.finalOutput}`);
console.log(`files: ${[...host.files.keys()].join(', ')}`);

/** A scripted model for the SDK's `Model` seam: one turn per call. */
function scriptedAgentsModel(turns) {
  let next = 0;
  return {
    async getResponse() {
      const turn = turns[next];
      next += 1;
      if (turn === undefined) throw new Error('the script ran out of turns');
      const output =
        'call' in turn
          ? [{ type: 'function_call', id: `fc-${turn.call.callId}`, callId: turn.call.callId, name: turn.call.name, arguments: JSON.stringify(turn.call.input), status: 'completed' }]
          : [{ type: 'message', id: `msg-${next}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text }] }];
      return { usage: new Usage(), output };
    },
    getStreamedResponse() {
      throw new Error('not streamed');
    },
  };
}
