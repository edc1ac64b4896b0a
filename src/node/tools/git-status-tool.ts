import { requireCapability, type ProcessResult } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';
import { processResultSchema } from './process-result-schema.js';

/** `git status` of the workspace: a fixed, read-only argv; the model chooses nothing. */
export const gitStatusTool = defineBuiltin<Record<string, never>, ProcessResult>({
  name: 'git_status',
  description: 'Show the git status of the workspace (branch and changed files, porcelain format). Takes no arguments and runs no other command.',
  input: { type: 'object', properties: {}, additionalProperties: false },
  output: processResultSchema,
  facts: { readOnly: true, idempotent: true },
  policy: { fsScoped: true },
  fixedArgv: ['git', 'status'],
  policyTarget: () => ({ path: '.' }),
  isConcurrencySafe: () => true,
  dispatch(_args, host, context) {
    return requireCapability(host, 'process', context.toolName).spawn('git', ['status', '--porcelain=v1', '--branch'], {}, { tool: context.toolName }, context.signal);
  },
});
