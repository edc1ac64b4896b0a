import { requireCapability } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';

/** Reads the system clipboard: ambient, possibly secret-bearing OS state, so it is a governed action. */
export const readClipboardTool = defineBuiltin<Record<string, never>, { text: string }>({
  name: 'read_clipboard',
  description: 'Read the text on the system clipboard.',
  input: { type: 'object', properties: {}, additionalProperties: false },
  output: { type: 'object', description: 'The clipboard `text`.', properties: { text: { type: 'string' } }, required: ['text'] },
  facts: { readOnly: true },
  policy: { os: true },
  policyTarget: () => ({ os: { action: 'read_clipboard' } }),
  async dispatch(_args, host, context) {
    return { text: await requireCapability(host, 'os', context.toolName).readClipboard(context.signal) };
  },
});
