import { Option, type Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { RunTask } from './run-task.js';

/** `init`, `serve` and `console`: set a project up, run its gateway, find the gateway's console. */
export function addSetupCommands(program: Command, run: RunTask): void {
  program
    .command('init')
    .description('write toolgate.config.json with a commented default policy')
    .option('--force', 'overwrite an existing file')
    .action((options: { force?: boolean }) =>
      run(async (output) => {
        const { runInit } = await import('../commands/init-command.js');
        const { file } = runInit(process.cwd(), { force: options.force === true });
        output.result({ file }, () => `wrote ${file}`);
      }),
    );

  addServeCommand(program, run);

  program
    .command('console')
    .description('print the URL of the console of every gateway running for this configuration, newest first')
    .action(() =>
      run(async (output, config) => {
        const { findRunningConsoles } = await import('../runtime/console-locator.js');
        const [newest, ...others] = findRunningConsoles(config());
        if (newest === undefined) throw new CliError('tool', 'No console is running for this configuration: start one with `toolgate serve`.');
        // One gateway: its URL alone, as a script expects. Several: one a line, each with its process.
        const line = (found: typeof newest) => (others.length === 0 ? found.url : `${found.url}  (pid ${String(found.pid)}, started ${found.startedAt})`);
        output.result({ ...newest, consoles: [newest, ...others] }, () => [newest, ...others].map(line).join('\n'));
      }),
    );
}

function addServeCommand(program: Command, run: RunTask): void {
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
        // Listened for before the start: a stop that comes while the gateway starts (a supervisor's SIGTERM right after
        // the banner) closes it once started, where the signal's default action killed it with its journal open.
        let stop = (): void => undefined;
        const stopped = new Promise<void>((resolve) => (stop = resolve));
        process.once('SIGINT', () => stop());
        process.once('SIGTERM', () => stop());
        const [{ resolveHttpAccess }, { runServe }] = await Promise.all([import('../runtime/resolve-http-access.js'), import('../commands/serve-command.js')]);
        const transport =
          options.stdio === true
            ? 'stdio'
            : { port, access: resolveHttpAccess(resolved, { noToken: options.token === false, ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }), ...(environment === undefined ? {} : { environment }) }) };
        const server = await runServe(resolved, { transport, console: options.console, elicitation: options.elicitation }, output);
        // Over stdio the client's going ends the gateway: its stdin ends, or the gateway closes it (a client that left too
        // much of the gateway's output unread).
        if (options.stdio === true) {
          process.stdin.once('end', () => stop());
          process.stdin.once('close', () => stop());
        }
        await stopped;
        await server.close();
        if (options.stdio === true) await leaveUnreadOutput(process.stdout);
      }),
    );
}

/** How long a stopped stdio gateway waits for its client to read what it has not yet read. */
const LAST_READ_MS = 2_000;

/**
 * Once everything has closed, a client that stopped reading holds the
 * gateway's last write to stdout pending for good, and that write alone
 * would keep the process running. The client gets a moment to read it; past
 * that, what it left unread is dropped and the process exits.
 */
async function leaveUnreadOutput(stdout: NodeJS.WriteStream): Promise<void> {
  if (stdout.writableLength === 0) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stdout.off('drain', done);
      resolve();
    };
    const timer = setTimeout(done, LAST_READ_MS);
    stdout.once('drain', done);
  });
  if (stdout.writableLength > 0) process.exit(process.exitCode ?? 0);
}
