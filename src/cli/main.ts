import { Command, CommanderError } from 'commander';
import { ToolgateError } from '../core/errors/toolgate-error.js';
import { CliError, exitCodeOfError } from './cli-error.js';
import { createCliOutput } from './cli-output.js';
import { terminalJson, terminalText } from './terminal-text.js';
import { packageVersion } from './package-version.js';
import { addAuditCommands } from './program/add-audit-commands.js';
import { addCallCommands } from './program/add-call-commands.js';
import { addMcpCommands } from './program/add-mcp-commands.js';
import { addPolicyCommands } from './program/add-policy-commands.js';
import { addReplayCommand } from './program/add-replay-command.js';
import { addSetupCommands } from './program/add-setup-commands.js';
import type { RunTask } from './program/run-task.js';

interface GlobalOptions {
  readonly json?: boolean;
  readonly debug?: boolean;
  readonly config?: string;
}

/**
 * The toolgate command line. Exit codes: 0 ok, 1 tool failure, 2 usage or
 * config error, 3 denied. `--json` on every command prints a JSON document
 * for scripts; without `--debug` an error is one clear line, never a stack.
 */
export function buildProgram(run: RunTask): Command {
  const program = new Command('toolgate')
    .description('The governed tool runtime for AI agents: serve governed tools to any MCP client, approve and audit every call.')
    .option('--json', 'print JSON for scripts')
    .option('--debug', 'show stack traces on errors')
    .option('-c, --config <file>', 'the configuration file (default: toolgate.config.json in the current directory)')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();

  addSetupCommands(program, run);
  addCallCommands(program, run);
  addMcpCommands(program, run);
  addPolicyCommands(program, run);
  addAuditCommands(program, run);
  addReplayCommand(program, run);
  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  let globals: GlobalOptions = {};
  const program = buildProgram(async (task) => {
    globals = program.opts<GlobalOptions>();
    const output = createCliOutput({ json: globals.json === true, debug: globals.debug === true });
    // Loaded here, not at the top: `--version` and `--help` start without the configuration's schema and parsers.
    const { loadConfig } = await import('./config/load-config.js');
    const result = await task(output, () => loadConfig(process.cwd(), globals.config));
    if (typeof result === 'number') exitCode = result;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    return reportError(error, globals);
  }
}

function reportError(error: unknown, globals: GlobalOptions): number {
  if (error instanceof CommanderError) {
    // Help and version exit 0; commander already printed the usage problem.
    return error.exitCode === 0 ? 0 : 2;
  }
  const code = ToolgateError.isInstance(error) ? exitCodeOfError(error.code) : 1;
  const message = error instanceof Error ? error.message : String(error);
  // A message may quote an upstream, a file or a journal row: written out, as everything the CLI prints.
  if (globals.json === true) process.stdout.write(`${terminalJson({ ok: false, error: { kind: error instanceof CliError ? error.kind : 'internal', message } }, 2)}\n`);
  else process.stderr.write(`toolgate: ${terminalText(message)}\n`);
  if (globals.debug === true && error instanceof Error && error.stack !== undefined) process.stderr.write(`${terminalText(error.stack)}\n`);
  return code;
}
