import { z } from 'zod';
import { defineTool } from '../../tools/define-tool.js';
import type { AnyToolDefinition } from '../../tools/tool-types.js';

const noop = (): null => null;

/** Tools covering what each projection must rewrite. */
export const sampleTools: readonly AnyToolDefinition[] = [
  defineTool({
    name: 'read_file',
    description: 'Read a text file from the workspace.',
    input: z.object({
      path: z.string().max(4096).describe('Workspace-relative path'),
      offset: z.number().int().min(0).optional(),
      limit: z.number().int().min(1).max(10_000).optional(),
    }),
    output: z.object({ content: z.string(), truncated: z.boolean() }),
    facts: { readOnly: true, idempotent: true, openWorld: false },
    policy: { fsScoped: true },
    dispatch: () => ({ content: '', truncated: false }),
  }),
  defineTool({
    name: 'write_file',
    description: 'Write a file.',
    input: z.object({
      path: z.string(),
      content: z.string(),
      mode: z.enum(['overwrite', 'append']).optional(),
      expectedSha256: z.string().regex(/^[0-9a-f]{64}$/).nullable().optional(),
    }),
    facts: { destructive: true },
    policy: { fsScoped: true, fsWrite: true },
    dispatch: noop,
  }),
  defineTool({
    name: 'search',
    version: '2.1.0',
    description: 'Search with filters.',
    input: {
      type: 'object',
      $defs: { range: { type: 'object', properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } }, required: ['from'] } },
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 256 },
        kind: { const: 'web' },
        when: { $ref: '#/$defs/range' },
        tags: { type: 'array', items: { type: 'string', maxLength: 32 }, maxItems: 8, uniqueItems: false },
        score: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 1 },
      },
      required: ['query', 'kind'],
    },
    facts: { readOnly: true, openWorld: true },
    policy: { egress: 'search' },
    dispatch: noop,
  }),
  defineTool({
    name: 'set_labels',
    description: 'Attach free-form labels (an open record).',
    input: z.object({ target: z.string(), labels: z.record(z.string(), z.string()) }),
    dispatch: noop,
  }),
  defineTool({
    name: 'choose',
    description: 'A union and a tool that takes a config-only token.',
    input: z.object({
      pick: z.union([z.object({ kind: z.literal('a'), size: z.number() }), z.object({ kind: z.literal('b'), label: z.string() })]),
      apiToken: z.string(),
    }),
    configOnly: ['apiToken'],
    dispatch: noop,
  }),
  defineTool({
    name: 'ping',
    description: 'Takes no arguments.',
    input: z.object({}),
    facts: { readOnly: true },
    dispatch: noop,
  }),
];
