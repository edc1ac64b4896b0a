import { requireCapability } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';

export interface NotifyArgs {
  readonly title: string;
  readonly body: string;
}

/** Shows a desktop notification. */
export const notifyTool = defineBuiltin<NotifyArgs, { delivered: true }>({
  name: 'notify',
  description: 'Show a desktop notification to the user.',
  input: {
    type: 'object',
    properties: { title: { type: 'string', minLength: 1, maxLength: 200 }, body: { type: 'string', maxLength: 2000 } },
    required: ['title', 'body'],
    additionalProperties: false,
  },
  output: { type: 'object', description: '`delivered: true` once the notifier accepted it.', properties: { delivered: { const: true } }, required: ['delivered'] },
  policy: { os: true },
  policyTarget: (args) => ({ os: { action: 'notify', text: `${args.title}\n${args.body}` } }),
  presentCall: (args) => ({ title: `Notify: ${args.title}`, body: args.body }),
  async dispatch(args, host, context) {
    await requireCapability(host, 'os', context.toolName).notify(args.title, args.body, context.signal);
    return { delivered: true };
  },
});
