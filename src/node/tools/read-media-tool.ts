import { requireCapability, ToolPolicyError, withAttachments, type MediaHandle } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';
import { mediaHandleSchema } from './shared-schemas.js';

/** Delivers stored media (an image a tool produced) to the model as an attachment. */
export const readMediaTool = defineBuiltin<{ readonly handle: string }, MediaHandle>({
  name: 'read_media',
  description: 'Show the model a stored media item (for example an image read_file returned as a handle). The media arrives as an attachment.',
  input: {
    type: 'object',
    properties: { handle: { type: 'string', pattern: '^media:sha256:[0-9a-f]{64}$', description: 'A media handle.' } },
    required: ['handle'],
    additionalProperties: false,
  },
  output: { ...mediaHandleSchema, description: 'The media `handle`, its `mediaType` and size in `bytes`; the content rides as an attachment.' },
  facts: { readOnly: true, idempotent: true },
  async dispatch(args, host, context) {
    const stored = await requireCapability(host, 'mediaStore', context.toolName).get(args.handle);
    // Only handles this host's store holds can be shown: a pure scope refusal the model may correct.
    if (stored === undefined) throw new ToolPolicyError(context.toolName, 'media_scope_denied', { detail: 'was refused: the media handle is not in this store', recoverable: true });
    const media: MediaHandle = { handle: args.handle, mediaType: stored.mediaType, bytes: stored.bytes.byteLength };
    return withAttachments(media, [media]);
  },
});
