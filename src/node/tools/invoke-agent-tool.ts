import { ToolUnavailableError } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';

export interface InvokeAgentArgs {
  readonly agent: string;
  readonly input: unknown;
}

/** Hands a task to another agent through the engine's delegate; no host I/O. */
export const invokeAgentTool = defineBuiltin<InvokeAgentArgs, { output: unknown }>({
  name: 'invoke_agent',
  description: 'Delegate a task to another configured agent and return its answer.',
  input: {
    type: 'object',
    properties: { agent: { type: 'string', minLength: 1, maxLength: 128 }, input: { description: 'What to give the agent.' } },
    required: ['agent', 'input'],
    additionalProperties: false,
  },
  output: { type: 'object', description: "The agent's `output`.", properties: { output: {} }, required: ['output'] },
  effect: 'execute',
  async dispatch(args, _host, context) {
    if (context.invokeAgent === undefined) throw new ToolUnavailableError(context.toolName, 'invokeAgent', 'no agent delegate is wired for this call');
    return { output: await context.invokeAgent(args.agent, args.input, context.signal) };
  },
});
