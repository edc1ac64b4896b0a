import { Option, type Command } from 'commander';
import { TOOL_FORMATS } from './option-choices.js';
import type { RunTask } from './run-task.js';

/** `call` and `tools`: make one governed call, list or project the tools. */
export function addCallCommands(program: Command, run: RunTask): void {
  program
    .command('call <tool> [json]')
    .description('make one governed call; json is the arguments, or - to read them from standard input')
    .action((tool: string, json: string | undefined) =>
      run(async (output, config) => (await import('../commands/call-command.js')).runCall(config(), tool, json, output, process.stdin.isTTY === true && process.stderr.isTTY === true && !output.json)),
    );

  program
    .command('tools')
    .description('list the tools, or project them for a provider')
    .addOption(new Option('--format <format>', 'output format').choices([...TOOL_FORMATS]).default('table'))
    .option('--strict', 'exit 3 when a configured MCP server is down (it is reported either way)')
    .action((options: { format: string; strict?: boolean }) => run(async (output, config) => (await import('../commands/tools-command.js')).runTools(config(), options.format, output, { strict: options.strict === true })));
}
