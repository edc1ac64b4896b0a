import { findShellOperator, requireCapability, type ProcessResult } from '../../core/internal.js';
import { defineBuiltin } from './define-builtin.js';
import { expectedCommand } from './expected-target.js';
import { processResultSchema } from './process-result-schema.js';

export interface RunCommandArgs {
  readonly command: string | readonly string[];
  readonly cwd?: string;
}

/** The argv of a command: an array as given, a string split on runs of spaces (no shell, no quoting). */
export function commandArgv(command: string | readonly string[]): readonly string[] {
  return typeof command === 'string' ? command.split(/ +/).filter((part) => part.length > 0) : command;
}

const COMPOUND_COMMAND =
  'the command string holds a shell operator (&&, ||, ;, |, &, >, <, $(, a backtick or a newline). toolgate runs one program without a shell: make a separate run_command call for each command, and read or write files with the file tools';

/** Runs one allowlisted command, without a shell. */
export const runCommandTool = defineBuiltin<RunCommandArgs, ProcessResult>({
  name: 'run_command',
  description:
    'Run one allowed command in the workspace, without a shell: no pipes, redirection, globbing or variables. Give an argv array, or a string that is split on spaces. The program is looked up on the system PATH only; the environment is minimal; time and output are capped.',
  input: {
    type: 'object',
    properties: {
      command: {
        description: 'An argv array, or a string split on runs of spaces.',
        anyOf: [
          { type: 'string', minLength: 1, maxLength: 8192 },
          { type: 'array', items: { type: 'string', maxLength: 8192 }, minItems: 1, maxItems: 256 },
        ],
      },
      cwd: { type: 'string', minLength: 1, maxLength: 4096, description: 'Workspace-relative working directory.' },
    },
    required: ['command'],
    additionalProperties: false,
  },
  output: processResultSchema,
  facts: { destructive: true, openWorld: false },
  policy: { spawnsProcess: true },
  policyTarget: (args) => ({ command: args.command, ...(args.cwd === undefined ? {} : { path: args.cwd }) }),
  // A string with a shell operator means a second command, a pipe or a redirection that would never happen:
  // refused before policy, so no rule written for `git status` is read as covering `git status && rm -rf x`.
  checkInput: (args) => (typeof args.command === 'string' && findShellOperator(args.command) !== undefined ? COMPOUND_COMMAND : undefined),
  presentCall: (args) => ({ title: 'Run command', body: commandArgv(args.command).join(' '), language: 'shell' }),
  dispatch(args, host, context) {
    const [program, ...rest] = commandArgv(args.command);
    const spawnOptions = { tool: context.toolName, ...expectedCommand(context), ...(args.cwd === undefined ? {} : { cwd: args.cwd }) };
    return requireCapability(host, 'process', context.toolName).spawn(program ?? '', rest, {}, spawnOptions, context.signal);
  },
});
