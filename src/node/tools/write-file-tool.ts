import { requireCapability, type FileWrite } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';
import { expectedFile } from './expected-target.js';
import { pathSchema } from './shared-schemas.js';

export interface WriteFileArgs {
  readonly path: string;
  readonly content: string;
  readonly expectedSha256?: string;
}

/** Writes a whole workspace file atomically, optionally only if it is unchanged. */
export const writeFileTool = defineBuiltin<WriteFileArgs, FileWrite>({
  name: 'write_file',
  description:
    'Create or replace a file in the workspace with the given UTF-8 content, atomically. Give expectedSha256 (from read_file) to write only if nobody changed the file since; a mismatch fails and asks for a fresh read.',
  input: {
    type: 'object',
    properties: {
      path: pathSchema,
      content: { type: 'string', description: 'The complete new content.' },
      expectedSha256: { type: 'string', pattern: '^[0-9a-fA-F]{64}$', description: 'The sha256 the current file must still have.' },
    },
    required: ['path', 'content'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    description: '`bytes` written, the new `sha256`, and whether the file was `created`.',
    properties: { bytes: { type: 'integer' }, sha256: { type: 'string' }, created: { type: 'boolean' } },
    required: ['bytes', 'sha256', 'created'],
  },
  facts: { destructive: true, idempotent: true },
  policy: { fsScoped: true, fsWrite: true },
  policyTarget: (args) => ({ path: args.path }),
  presentCall: (args) => ({ title: `Write ${args.path}`, body: args.content }),
  dispatch(args, host, context) {
    const options = { tool: context.toolName, ...expectedFile(context), ...(args.expectedSha256 === undefined ? {} : { expectedSha256: args.expectedSha256 }) };
    return requireCapability(host, 'fs', context.toolName).writeFile(args.path, args.content, options, context.signal);
  },
});
