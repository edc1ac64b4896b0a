import type { JsonSchema } from '../../core/internal.js';

/** A content-addressed media handle (`media:sha256:…`), as every built-in returns binary content. */
export const mediaHandleSchema: JsonSchema = {
  type: 'object',
  properties: { handle: { type: 'string' }, mediaType: { type: 'string' }, bytes: { type: 'integer' } },
  required: ['handle', 'mediaType', 'bytes'],
};

/** Workspace-relative path argument. */
export const pathSchema: JsonSchema = { type: 'string', minLength: 1, maxLength: 4096, description: 'Workspace-relative path.' };
