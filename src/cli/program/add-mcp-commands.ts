import type { Command } from 'commander';
import type { RunTask } from './run-task.js';

// Loaded when the command runs: the program starts without the MCP client.
const mcpCommand = () => import('../commands/mcp-command.js');

/** `mcp withheld` and `mcp approve`: review and pin upstream definitions. */
export function addMcpCommands(program: Command, run: RunTask): void {
  const mcp = program.command('mcp').description('review and approve upstream MCP definitions that are withheld');
  mcp
    .command('withheld')
    .description('the upstream definitions withheld now (changed since they were approved), each whole, with its digest')
    .action(() => run(async (output, config) => (await mcpCommand()).runMcpWithheld(config(), output)));
  mcp
    .command('approve <name>')
    .description('pin the definition you reviewed; refused if the upstream now offers anything else')
    .requiredOption('--digest <sha256>', 'the offered sha256 that `toolgate mcp withheld` shows')
    .action((name: string, options: { digest: string }) => run(async (output, config) => (await mcpCommand()).runMcpApprove(config(), name, options.digest, output)));
}
