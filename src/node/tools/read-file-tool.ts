import { requireCapability, type FileRead } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';
import { expectedFile } from './expected-target.js';
import { mediaHandleSchema, pathSchema } from './shared-schemas.js';

export interface ReadFileArgs {
  readonly path: string;
  readonly offset?: number;
  readonly limit?: number;
}

/** Reads a workspace file; text inline, binary as a media handle. */
export const readFileTool = defineBuiltin<ReadFileArgs, FileRead>({
  name: 'read_file',
  description:
    'Read a file in the workspace. Text comes back as one line of JSON (bytes, partial, sha256) followed by the UTF-8 text as it is (offset/limit select a window of lines); a binary file comes back as a media handle, never inline. Pass the returned sha256 to write_file as expectedSha256 to detect a concurrent change.',
  input: {
    type: 'object',
    properties: {
      path: pathSchema,
      offset: { type: 'integer', minimum: 1, description: 'First line to return, 1-based.' },
      limit: { type: 'integer', minimum: 1, maximum: 100000, description: 'Number of lines to return.' },
    },
    required: ['path'],
    additionalProperties: false,
  },
  output: {
    type: 'object',
    description: '`content` for text, `media` for binary; `bytes` is the whole file size; `partial` when a line window or the size cap cut the content; `sha256` of the whole file when it was read whole.',
    properties: {
      content: { type: 'string' },
      media: mediaHandleSchema,
      bytes: { type: 'integer' },
      partial: { type: 'boolean' },
      sha256: { type: 'string' },
    },
    required: ['bytes', 'partial'],
  },
  facts: { readOnly: true, idempotent: true },
  policy: { fsScoped: true },
  policyTarget: (args) => ({ path: args.path }),
  isConcurrencySafe: () => true,
  renderContent: renderFileRead,
  dispatch(args, host, context) {
    const options = { tool: context.toolName, ...expectedFile(context), ...(args.offset === undefined ? {} : { offset: args.offset }), ...(args.limit === undefined ? {} : { limit: args.limit }) };
    return requireCapability(host, 'fs', context.toolName).readFile(args.path, options, context.signal);
  },
});

/**
 * What the model reads: the facts as one line of JSON, then the text as it
 * is. The text is neither escaped nor copied into a JSON string, so a large
 * file costs one pass to bound, and a cut preview still begins with the
 * facts (the sha256 that write_file takes). A binary file is its JSON, media
 * handle included.
 */
export function renderFileRead(read: FileRead): string {
  if (read.content === undefined) return JSON.stringify(read);
  const { content, ...facts } = read;
  return `${JSON.stringify(facts)}\n${content}`;
}
