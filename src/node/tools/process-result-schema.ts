import type { JsonSchema } from '../../core/internal.js';

/** The shape every process-backed built-in returns. */
export const processResultSchema: JsonSchema = {
  type: 'object',
  description:
    '`exitCode` (null when killed), the killing `signal`, `stdout`/`stderr` (each capped), `timedOut`, `truncated` when a cap cut the output (or pipes a leftover background process held open were closed), `sandbox`: `bwrap` or `none`, and `removedGitlinks`: submodule entries the command added to the repository\'s index or to a submodule\'s (each a path from the workspace), which were taken out again (the user\'s git would run the nested repository each names).',
  properties: {
    exitCode: { type: ['integer', 'null'] },
    signal: { type: ['string', 'null'] },
    stdout: { type: 'string' },
    stderr: { type: 'string' },
    timedOut: { type: 'boolean' },
    truncated: { type: 'boolean' },
    sandbox: { enum: ['bwrap', 'none'] },
    removedGitlinks: { type: 'array', items: { type: 'string' } },
  },
  required: ['exitCode', 'signal', 'stdout', 'stderr', 'timedOut', 'truncated'],
};
