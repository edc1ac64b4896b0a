import { Argument, Command, CommanderError, Option } from 'commander';
import { ToolgateError } from '../core/internal.js';
import { CliError, exitCodeOfError } from './cli-error.js';
import { createCliOutput, type CliOutput } from './cli-output.js';
import { RECEIPT_STATUSES, runAuditExport, runAuditResolve, runAuditShow, runAuditTail, runAuditUnresolved, runAuditVerify } from './commands/audit-command.js';
import { runCall } from './commands/call-command.js';
import { runInit } from './commands/init-command.js';
import { runMcpApprove, runMcpWithheld } from './commands/mcp-command.js';
import { runPolicyCheck, runPolicyExplain, runPolicyImport } from './commands/policy-command.js';
import { runReplay } from './commands/replay-command.js';
import { runServe } from './commands/serve-command.js';
import { runTools, TOOL_FORMATS } from './commands/tools-command.js';
import { loadConfig } from './config/load-config.js';
import { packageVersion } from './package-version.js';
import { findRunningConsoles } from './runtime/console-locator.js';
import { resolveHttpAccess } from './runtime/resolve-http-access.js';
import type { ResolvedConfig } from './config/config-types.js';

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
export function buildProgram(run: (task: (output: CliOutput, config: () => ResolvedConfig) => Promise<number | void>) => Promise<void>): Command {
  const program = new Command('toolgate')
    .description('The governed tool runtime for AI agents: serve governed tools to any MCP client, approve and audit every call.')
    .option('--json', 'print JSON for scripts')
    .option('--debug', 'show stack traces on errors')
    .option('-c, --config <file>', 'the configuration file (default: toolgate.config.json in the current directory)')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('init')
    .description('write toolgate.config.json with a commented default policy')
    .option('--force', 'overwrite an existing file')
    .action((options: { force?: boolean }) =>
      run((output) => {
        const { file } = runInit(process.cwd(), { force: options.force === true });
        output.result({ file }, () => `wrote ${file}`);
        return Promise.resolve();
      }),
    );

  program
    .command('serve')
    .description('serve the built-in tools and the configured MCP servers, governed, to MCP clients; start the console')
    .addOption(new Option('--stdio', 'serve MCP over stdio (for clients that spawn toolgate)').conflicts('http'))
    .option('--http <port>', 'serve MCP over Streamable HTTP on 127.0.0.1:<port> (default 7420)')
    // Refused: a token on the command line is readable by every local user. Declared so the refusal can say what to use instead.
    .addOption(new Option('--token <secret>').hideHelp())
    .addOption(new Option('--token-file <path>', 'read the bearer token the HTTP transport requires from this file (yours alone, mode 0600); or set TOOLGATE_TOKEN').conflicts('stdio'))
    .addOption(new Option('--no-token', 'serve HTTP without a bearer token: any local process can then call the tools').conflicts('stdio'))
    .option('--no-console', 'do not start the web console')
    .option('--no-elicitation', 'never ask an MCP client to approve, even one elicitation.trustedClients lists: approvals go to the console only')
    .action((options: { stdio?: boolean; http?: string; token?: string | false; tokenFile?: string; console: boolean; elicitation: boolean }) =>
      run(async (output, config) => {
        if (typeof options.token === 'string') {
          throw new CliError('usage', '--token is refused: every local user can read a command line (ps, /proc/<pid>/cmdline). Put the token in a file only you can read and pass --token-file PATH, or set TOOLGATE_TOKEN; with neither, serve generates one in .toolgate/http-token.');
        }
        const port = options.http === undefined ? 7420 : Number(options.http);
        if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError('usage', '--http takes a port number.');
        // Read once and dropped from this process's environment, so nothing it starts can inherit the token.
        const environment = process.env.TOOLGATE_TOKEN;
        delete process.env.TOOLGATE_TOKEN;
        const resolved = config();
        const transport =
          options.stdio === true
            ? 'stdio'
            : { port, access: resolveHttpAccess(resolved, { noToken: options.token === false, ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }), ...(environment === undefined ? {} : { environment }) }) };
        const server = await runServe(resolved, { transport, console: options.console, elicitation: options.elicitation }, output);
        await new Promise<void>((resolve) => {
          const stop = (): void => resolve();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
          if (options.stdio === true) process.stdin.once('end', stop);
        });
        await server.close();
      }),
    );

  program
    .command('console')
    .description('print the URL of the console of every gateway running for this configuration, newest first')
    .action(() =>
      run((output, config) => {
        const [newest, ...others] = findRunningConsoles(config());
        if (newest === undefined) throw new CliError('tool', 'No console is running for this configuration: start one with `toolgate serve`.');
        // One gateway: its URL alone, as a script expects. Several: one a line, each with its process.
        const line = (found: typeof newest) => (others.length === 0 ? found.url : `${found.url}  (pid ${String(found.pid)}, started ${found.startedAt})`);
        output.result({ ...newest, consoles: [newest, ...others] }, () => [newest, ...others].map(line).join('\n'));
        return Promise.resolve();
      }),
    );

  program
    .command('call <tool> [json]')
    .description('make one governed call; json is the arguments, or - to read them from standard input')
    .action((tool: string, json: string | undefined) =>
      run((output, config) => runCall(config(), tool, json, output, process.stdin.isTTY === true && process.stderr.isTTY === true && !output.json)),
    );

  program
    .command('tools')
    .description('list the tools, or project them for a provider')
    .addOption(new Option('--format <format>', 'output format').choices([...TOOL_FORMATS]).default('table'))
    .option('--strict', 'exit 3 when a configured MCP server is down (it is reported either way)')
    .action((options: { format: string; strict?: boolean }) => run((output, config) => runTools(config(), options.format, output, { strict: options.strict === true })));

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

  const policy = program.command('policy').description('explain, import or check the policy');
  policy
    .command('explain <tool> <json>')
    .description('why a call would be allowed, asked or denied')
    .action((tool: string, json: string) => run((output, config) => runPolicyExplain(config(), tool, json, output)));
  policy
    .command('import')
    .description('import a Claude Code settings.json (claude) or a Gemini CLI TOML policy (gemini)')
    .addArgument(new Argument('<kind>', 'what the file is').choices(['claude', 'gemini']))
    .argument('<file>')
    .action((kind: string, file: string) => run((output) => runPolicyImport(kind, file, output)));
  policy
    .command('check')
    .description('load the policy and run every rule self-test')
    .action(() => run((output, config) => runPolicyCheck(config(), output)));

  const audit = program.command('audit').description('read and verify the journal');
  audit
    .command('tail')
    .description('the newest receipts')
    .option('-n, --lines <n>', 'how many', '20')
    .option('-f, --follow', 'keep printing new receipts')
    .option('--tool <tool>', 'only this tool')
    .addOption(new Option('--status <status>', 'only receipts with this status').choices([...RECEIPT_STATUSES]))
    .option('--agent <agent>', 'only this agent (cli for toolgate call)')
    .option('--run <run>', 'only this run (the serve banner names it; cli for toolgate call)')
    .action((options: { lines: string; follow?: boolean; tool?: string; status?: string; agent?: string; run?: string }) =>
      run((output, config) => {
        const controller = new AbortController();
        process.once('SIGINT', () => controller.abort());
        const filter = { ...(options.tool === undefined ? {} : { tool: options.tool }), ...(options.status === undefined ? {} : { status: options.status }), ...(options.agent === undefined ? {} : { agent: options.agent }), ...(options.run === undefined ? {} : { runId: options.run }) };
        return runAuditTail(config(), { lines: Math.max(1, Number(options.lines) || 20), follow: options.follow === true, filter }, output, controller.signal);
      }),
    );
  audit
    .command('show <invocation>')
    .description('one receipt with its chain position')
    .action((id: string) => run((output, config) => Promise.resolve(runAuditShow(config(), id, output))));
  audit
    .command('verify')
    .description('verify the hash chain and signatures against the anchored head; name the first bad row or how the file was cut or replaced')
    .option('--anchor <file>', 'check against this anchor (a copy kept elsewhere) instead of the journal\'s own .anchor file')
    .option('--no-anchor', 'walk the chain alone')
    .option('--strict', 'fail on rows beyond the anchor and on a missing anchor')
    .action((options: { anchor: string | boolean; strict?: boolean }) =>
      run((output, config) => runAuditVerify(config(), { ...(options.anchor === false ? { anchor: false } : typeof options.anchor === 'string' ? { anchor: options.anchor } : {}), strict: options.strict === true }, output)),
    );
  audit
    .command('unresolved')
    .description('calls that claimed their effect and never settled (a crash, or a process still running): each refuses its action until resolved')
    .action(() => run((output, config) => runAuditUnresolved(config(), output)));
  audit
    .command('resolve <claim>')
    .description('answer an unresolved claim, journaled: --as failed (the effect did not happen; the action may run again) or --as done (it happened)')
    .requiredOption('--as <outcome>', 'failed or done')
    .option('--note <text>', 'why, for the audit trail')
    .option('--force', 'resolve even though the pid that held the claim runs on this host (it may be another process now)')
    .action((claim: string, options: { as: string; note?: string; force?: boolean }) =>
      run((output, config) => runAuditResolve(config(), claim, { as: options.as, ...(options.note === undefined ? {} : { note: options.note }), force: options.force === true }, output)),
    );
  audit
    .command('export')
    .description('export every receipt')
    .addOption(new Option('--format <format>').choices(['jsonl', 'csv']).default('jsonl'))
    .option('--out <file>', 'write to a file instead of standard output')
    .action((options: { format: string; out?: string }) => run((output, config) => Promise.resolve(runAuditExport(config(), options.format, options.out, output))));

  program
    .command('replay <run>')
    .description('re-run a recorded run from the journal, with no side effect, and compare')
    .action((runId: string) => run((output, config) => runReplay(config(), runId, output)));

  return program;
}

export async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  let globals: GlobalOptions = {};
  const program = buildProgram(async (task) => {
    globals = program.opts<GlobalOptions>();
    const output = createCliOutput({ json: globals.json === true, debug: globals.debug === true });
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
  if (globals.json === true) process.stdout.write(`${JSON.stringify({ ok: false, error: { kind: error instanceof CliError ? error.kind : 'internal', message } }, null, 2)}\n`);
  else process.stderr.write(`toolgate: ${message}\n`);
  if (globals.debug === true && error instanceof Error && error.stack !== undefined) process.stderr.write(`${error.stack}\n`);
  return code;
}
