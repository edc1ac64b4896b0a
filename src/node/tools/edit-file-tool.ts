import { requireCapability, ToolUnavailableError, type FileEdit } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';
import { expectedFile } from './expected-target.js';
import { pathSchema } from './shared-schemas.js';

export interface EditFileArgs {
  readonly path: string;
  readonly oldText: string;
  readonly newText: string;
  readonly replaceAll?: boolean;
}

/** Replaces exact text in a workspace file: what coding agents expect. */
export const editFileTool = defineBuiltin<EditFileArgs, FileEdit>({
  name: 'edit_file',
  description:
    'Replace exact text in a workspace file. oldText must occur exactly once (include surrounding lines to make it unique) unless replaceAll is true. Fails without writing when the text is missing or ambiguous.',
  input: {
    type: 'object',
    properties: {
      path: pathSchema,
      oldText: { type: 'string', minLength: 1, description: 'The exact text to replace.' },
      newText: { type: 'string', description: 'The replacement.' },
      replaceAll: { type: 'boolean', description: 'Replace every occurrence.' },
    },
    required: ['path', 'oldText', 'newText'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    description: 'The new file size in `bytes`, its `sha256`, and how many `replacements` were made.',
    properties: { bytes: { type: 'integer' }, sha256: { type: 'string' }, replacements: { type: 'integer' } },
    required: ['bytes', 'sha256', 'replacements'],
  },
  facts: { destructive: true },
  policy: { fsScoped: true, fsWrite: true },
  policyTarget: (args) => ({ path: args.path }),
  // Every line of the old text is marked `-` and every line of the new `+`: a new text holding "\n- …" cannot pass for old text.
  presentCall: (args) => ({
    title: `Edit ${args.path}`,
    subtitle: args.replaceAll === true ? 'replaceAll: every occurrence' : 'replaceAll: false (exactly one occurrence)',
    body: `${marked('-', args.oldText)}\n${marked('+', args.newText)}`,
    language: 'diff',
  }),
  dispatch(args, host, context) {
    const fs = requireCapability(host, 'fs', context.toolName);
    if (fs.editFile === undefined) throw new ToolUnavailableError(context.toolName, 'fs', 'the host filesystem cannot edit files');
    const edit = { oldText: args.oldText, newText: args.newText, ...(args.replaceAll === undefined ? {} : { replaceAll: args.replaceAll }) };
    return fs.editFile(args.path, edit, { tool: context.toolName, ...expectedFile(context) }, context.signal);
  },
});

function marked(sign: '-' | '+', text: string): string {
  return text
    .split('\n')
    .map((line) => `${sign} ${line}`)
    .join('\n');
}
