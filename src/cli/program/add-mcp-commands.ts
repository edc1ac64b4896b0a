import type { Command } from 'commander';
import { runMcpApprove, runMcpWithheld } from '../commands/mcp-command.js';
import type { RunTask } from './run-task.js';

/** `mcp withheld` and `mcp approve`: review and pin upstream definitions. */
export function addMcpCommands(program: Command, run: RunTask): void {
  const mcp = program.command('mcp').description('review and approve upstream MCP definitions that are withheld');
  mcp
    .command('withheld')
    .description('the upstream definitions withheld now (changed since they were approved), each whole, with its digest')
    .action(() => run((output, config) => runMcpWithheld(config(), output)));
  mcp
    .command('approve <name>')
    .description('pin the definition you reviewed; refused if the upstream now offers anything else')
    .requiredOption('--digest <sha256>', 'the offered sha256 that `toolgate mcp withheld` shows')
    .action((name: string, options: { digest: string }) => run((output, config) => runMcpApprove(config(), name, options.digest, output)));
}
