import { requireCapability, type DirectoryEntry } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';
import { expectedFile } from './expected-target.js';
import { pathSchema } from './shared-schemas.js';

export interface ListDirectoryArgs {
  readonly path: string;
  readonly depth?: number;
  readonly includeHidden?: boolean;
}

/** Lists a workspace directory, honouring `.gitignore`. */
export const listDirectoryTool = defineBuiltin<ListDirectoryArgs, { entries: readonly DirectoryEntry[] }>({
  name: 'list_directory',
  description:
    'List a workspace directory, to the given depth (1 = just this directory). Entries ignored by .gitignore, the .git directory and (unless includeHidden) dot-files are left out. Symlinks are listed, never followed.',
  input: {
    type: 'object',
    properties: {
      path: pathSchema,
      depth: { type: 'integer', minimum: 1, maximum: 8, description: 'How many levels to descend; default 1.' },
      includeHidden: { type: 'boolean', description: 'Include names starting with a dot.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    description: '`entries`: workspace-relative `path` (with `/`), `kind` (file, directory, symlink, other) and `bytes` for files.',
    properties: {
      entries: {
        type: 'array',
        items: {
          type: 'object',
          properties: { path: { type: 'string' }, kind: { enum: ['file', 'directory', 'symlink', 'other'] }, bytes: { type: 'integer' } },
          required: ['path', 'kind'],
        },
      },
    },
    required: ['entries'],
  },
  facts: { readOnly: true, idempotent: true },
  policy: { fsScoped: true },
  policyTarget: (args) => ({ path: args.path }),
  isConcurrencySafe: () => true,
  async dispatch(args, host, context) {
    const options = { tool: context.toolName, ...expectedFile(context), ...(args.depth === undefined ? {} : { depth: args.depth }), ...(args.includeHidden === undefined ? {} : { includeHidden: args.includeHidden }) };
    return { entries: await requireCapability(host, 'fs', context.toolName).listDirectory(args.path, options, context.signal) };
  },
});
