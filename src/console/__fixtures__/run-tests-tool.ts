import { z } from 'zod';
import { defineTool, type ToolPolicy } from '../../core/internal.js';

/** A policy that allows every call: the console's tests decide in the approval queue, not in policy. */
export const allowAll: ToolPolicy = { version: 3, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'allow', matched: [] }) };

/** A command-running tool whose cards the console's tests draw: its target is the command, and it runs nothing. */
export const runTests = defineTool({
  name: 'run_tests',
  description: 'Run the test suite',
  input: z.object({ command: z.string() }),
  policy: { spawnsProcess: true },
  policyTarget: (args) => ({ command: args.command }),
  dispatch: () => ({ exitCode: 0, stdout: 'all green' }),
});
