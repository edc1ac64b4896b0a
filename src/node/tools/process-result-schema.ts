import type { JsonSchema } from '../../core/internal.js';

/** The shape every process-backed built-in returns. */
export const processResultSchema: JsonSchema = {
  type: 'object',
  description:
    '`exitCode` (null when killed), the killing `signal`, `stdout`/`stderr` (each capped), `timedOut`, `truncated` when a cap cut the output (or pipes a leftover background process held open were closed), `sandbox`: `bwrap` or `none`, and `removedGitlinks`: submodule entries the command added to the repository\'s index or to a submodule\'s (each a path from the workspace), which were taken out again (the user\'s git would run the nested repository each names), and `movedRepositories`: nested repositories the command left holding configuration or hooks they did not hold before, each `.git` moved aside (`from`, `to`, paths from the workspace, and `because`: what it holds, such as `config: core.fsmonitor`), since the user\'s git would run that on entering one as a submodule, and `movedProtectedPaths`: protected files or folders the command made where there were none when it started (a toolgate, Claude Code or Gemini CLI configuration, an env file, a key), each moved aside (`from`, `to`, paths from the workspace): a command writes no protected path; write one with the file tools, which ask a person.',
  properties: {
    exitCode: { type: ['integer', 'null'] },
    signal: { type: ['string', 'null'] },
    stdout: { type: 'string' },
    stderr: { type: 'string' },
    timedOut: { type: 'boolean' },
    truncated: { type: 'boolean' },
    sandbox: { enum: ['bwrap', 'none'] },
    removedGitlinks: { type: 'array', items: { type: 'string' } },
    movedRepositories: {
      type: 'array',
      items: {
        type: 'object',
        properties: { from: { type: 'string' }, to: { type: 'string' }, because: { type: 'array', items: { type: 'string' } } },
        required: ['from', 'to', 'because'],
      },
    },
    movedProtectedPaths: {
      type: 'array',
      items: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } }, required: ['from', 'to'] },
    },
  },
  required: ['exitCode', 'signal', 'stdout', 'stderr', 'timedOut', 'truncated'],
};
