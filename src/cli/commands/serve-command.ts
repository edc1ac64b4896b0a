import { resolve } from 'node:path';
import { anchorPathFor } from '../../journal/sqlite/index.js';
import { serveMcp, type McpGateway, type McpServerStatus } from '../../mcp/index.js';
import type { ConsoleServer } from '../../console/index.js';
import type { ConfirmActionHook } from '../../core/internal.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { publishConsole, withdrawConsole } from '../runtime/console-locator.js';
import { describeServerDown } from '../runtime/describe-server-down.js';
import { openGateway, type Gateway } from '../runtime/open-gateway.js';
import { startServeConsole, type ServeConsole } from '../runtime/serve-console.js';
import { StateFolderUnwritable } from '../runtime/state-record.js';
import type { HttpAccess } from '../runtime/resolve-http-access.js';
import { startRetention } from '../runtime/start-retention.js';
import { startTraceExport } from '../runtime/start-trace-export.js';
import { packageVersion } from '../package-version.js';
import { terminalJson } from '../terminal-text.js';

export interface ServeOptions {
  /** `stdio`, or an HTTP port (0: a free one) with what it asks of a client (`resolveHttpAccess`). */
  readonly transport: 'stdio' | { readonly port: number; readonly access: HttpAccess };
  readonly console: boolean;
  /**
   * Ask the clients `elicitation.trustedClients` names, when they can
   * elicit (default true). Off, every approval goes to the console,
   * whatever the config trusts.
   */
  readonly elicitation?: boolean;
}

export interface RunningServer {
  readonly gateway: Gateway;
  readonly mcp: McpGateway;
  readonly console: ConsoleServer | undefined;
  close(): Promise<void>;
}

/**
 * `toolgate serve`: the MCP gateway (the built-in tools plus the configured
 * upstream servers, every call through the pipeline) and the web console
 * where a person approves and audits. Over stdio, everything human goes to
 * stderr: stdout belongs to the protocol.
 */
export async function runServe(config: ResolvedConfig, options: ServeOptions, output: CliOutput): Promise<RunningServer> {
  const http = options.transport === 'stdio' ? undefined : options.transport;
  const consoleOn = options.console && config.console.enabled;
  const trustedClients = options.elicitation === false ? [] : config.elicitation.trustedClients;
  // Before anything opens: a collector named without the packages to reach it stops the start here.
  const traces = await startTraceExport(process.env);
  // Without the console nobody sees the queue: a call the mode leaves to a person is denied at once, not left to hang.
  // The token file `--token-file` named is the gateway's as much as `.toolgate/http-token`: no tool reads it.
  const tokenFile = http !== undefined && 'file' in http.access ? [resolve(http.access.file)] : [];
  const gateway = await openGateway(config, { ...(consoleOn ? {} : { prompt: nobodyToAsk(trustedClients.length > 0) }), ownFiles: tokenFile });
  let served: ServeConsole | undefined;
  const tracing = traces?.trace(gateway.registry());
  try {
    for (const warning of gateway.warnings) output.info(`warning: ${warning}`);
    const stopReporting = reportServerStatus(gateway, output);
    // Every call of this gateway is journaled under one run id: `audit tail --run` and `replay` take it.
    const runId = `serve-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    if (consoleOn) served = await startServeConsole(gateway, runId);
    const mcp = await serveMcp(gateway.live, {
      transport: http === undefined ? 'stdio' : { kind: 'http', port: http.port, ...(http.access.kind === 'token' ? { token: http.access.token } : {}) },
      context: { ...gateway.context, runId },
      controller: gateway.controller,
      ...(trustedClients.length === 0 ? {} : { elicitation: { trustedClients } }),
      ...(tracing === undefined ? {} : { observeCall: tracing.observeServedCall }),
      ...(config.limits.maxMediaBytes === undefined ? {} : { maxMediaBytes: config.limits.maxMediaBytes }),
      ...(http !== undefined || config.limits.maxUnreadBytes === undefined ? {} : { maxUnreadBytes: config.limits.maxUnreadBytes }),
      name: 'toolgate',
      version: packageVersion(),
    });
    const running = served?.server;
    announceServe({ gateway, mcp, http, console: running, runId, tracing: traces !== undefined }, output);
    const stopRetention = startRetention(gateway, (run) => {
      if (run instanceof Error) output.info(`warning: retention failed, retried within the hour: ${run.message}`);
      else if (run.compactedRows + run.removed > 0) output.info(`retention: ${run.compactedRows} journal rows compacted, ${run.removed} spills and media removed (${run.freedBytes} bytes)`);
    });
    reportStarted({ gateway, mcp, http, console: running, runId }, options, output);
    const audit = served?.audit;
    return {
      gateway,
      mcp,
      console: running,
      async close() {
        stopRetention?.();
        stopReporting();
        if (running !== undefined) withdrawConsole(config);
        await mcp.close();
        await running?.close();
        audit?.close();
        await gateway.close();
        tracing?.detach();
        await traces?.shutdown();
      },
    };
  } catch (error) {
    await served?.server.close();
    served?.audit.close();
    await gateway.close();
    tracing?.detach();
    await traces?.shutdown();
    throw error;
  }
}

/** What a started gateway is made of, for its banner and start-up document. */
interface StartedServe {
  readonly gateway: Gateway;
  readonly mcp: McpGateway;
  readonly http: { readonly port: number; readonly access: HttpAccess } | undefined;
  readonly console: ConsoleServer | undefined;
  readonly runId: string;
}

/** Say which servers are down now, then once when one goes down and once when it is back, not at every retry between. */
function reportServerStatus(gateway: Gateway, output: CliOutput): () => void {
  for (const status of gateway.connection.servers()) if (status.state !== 'up') output.info(describeServerDown(status, retriedAt(status)));
  const stopDown = gateway.connection.on('server-down', (status) => {
    if (status.failures === 1) output.info(describeServerDown(status, retriedAt(status)));
  });
  const stopUp = gateway.connection.on('server-up', (status) => output.info(`MCP server "${status.server}" is up: ${status.tools} tools offered`));
  return () => {
    stopDown();
    stopUp();
  };
}

/** The start-up banner: the tools, the endpoint and its token, the console, the journal and the run, the traces. */
function announceServe(started: StartedServe & { readonly tracing: boolean }, output: CliOutput): void {
  const { gateway, mcp, http, console: consoleServer, runId } = started;
  const { config } = gateway;
  output.info(`toolgate gateway: ${gateway.registry().list().length} tools from ${config.workspace} (${config.scope}, mode ${gateway.controller.mode})`);
  output.info(mcp.url === undefined ? 'MCP: stdio' : `MCP: ${mcp.url}`);
  if (http !== undefined) for (const line of describeAccess(http.access)) output.info(line);
  if (consoleServer !== undefined) {
    try {
      publishConsole(config, consoleServer.url);
    } catch (error) {
      // The console works without it; only `toolgate console` cannot find it.
      output.info(`warning: the console URL could not be saved for \`toolgate console\` (${error instanceof StateFolderUnwritable ? error.errno : ((error as NodeJS.ErrnoException).code ?? 'write failed')})`);
    }
  }
  if (consoleServer === undefined) output.info('console: off');
  else output.info(`console: ${announcedConsoleUrl(consoleServer, http)} (\`toolgate console\` prints it ${http === undefined ? 'with its token' : 'again'})`);
  output.info(`journal: ${config.journal.path} (anchored in ${anchorPathFor(config.journal.path)}), run ${runId} (\`toolgate audit tail --run ${runId}\`, \`toolgate replay ${runId}\`)`);
  if (started.tracing) output.info('traces: OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT');
}

/**
 * The start-up document, with --json. Over stdio, stdout carries the
 * protocol: it goes to stderr instead. The MCP token outlives this start:
 * the document names its file, never the token, so a log of stdout does not
 * keep it.
 */
function reportStarted(started: StartedServe, options: ServeOptions, output: CliOutput): void {
  if (!output.json) return;
  const { gateway, mcp, http } = started;
  const document = {
    mcp: mcp.url ?? 'stdio',
    ...(http === undefined ? {} : { auth: http.access.kind === 'token' ? 'bearer' : 'none', ...('file' in http.access ? { tokenFile: http.access.file } : {}) }),
    console: started.console === undefined ? undefined : announcedConsoleUrl(started.console, http),
    tools: gateway.registry().list().length,
    servers: gateway.connection.servers(),
    journal: gateway.config.journal.path,
    runId: started.runId,
  };
  if (options.transport !== 'stdio') output.result(document);
  else process.stderr.write(`${terminalJson(document)}\n`);
}

/**
 * The console's address as the banner and the start-up document give it.
 * Over stdio both go to the MCP client's stderr, and a client may be the
 * model's own loop: holding the token, it could approve its own calls in
 * the console. There the address goes without its token; `toolgate
 * console` reads it whole from a file only the user can read.
 */
function announcedConsoleUrl(consoleServer: ConsoleServer, http: StartedServe['http']): string {
  return http === undefined ? `http://127.0.0.1:${consoleServer.port}/` : consoleServer.url;
}

function retriedAt(status: McpServerStatus): string {
  return status.nextRetryAt === undefined ? 'it is retried' : `retried at ${new Date(status.nextRetryAt).toISOString()}`;
}

/** The prompt of a gateway without a console: it asks nobody, and says how to approve. */
function nobodyToAsk(someClientTrusted: boolean): ConfirmActionHook {
  const reason = someClientTrusted
    ? 'nobody can be asked: run toolgate serve with the console on, or use a client listed in elicitation.trustedClients that supports elicitation'
    : 'nobody can be asked: run toolgate serve with the console on, or list this MCP client in elicitation.trustedClients in toolgate.config.json';
  return () => Promise.resolve({ outcome: 'reject', noApprover: true, reason, by: 'gateway' });
}

/** The banner lines about the MCP token: the token itself only when it was just generated, its file otherwise. */
function describeAccess(access: HttpAccess): string[] {
  if (access.kind === 'none') return ['warning: --no-token: the MCP endpoint asks for no token, so any local process can call the tools through it'];
  const send = 'clients send "Authorization: Bearer <token>"';
  if (access.from === 'environment') return [`MCP token: from TOOLGATE_TOKEN; ${send}`];
  const lines = access.replaced === undefined ? [] : [`warning: ${access.replaced}; replaced with a new token`];
  if (access.from === 'generated') lines.push(`MCP token (new, shown once): ${access.token}`, `  saved in ${access.file} (mode 0600); ${send}`);
  else lines.push(`MCP token: in ${access.file}; ${send}`);
  return lines;
}
