import { anchorPathFor, createJournalAudit, readJournalAnchor, type JournalAudit } from '../../journal/sqlite/index.js';
import { serveMcp, type McpGateway, type McpServerStatus } from '../../mcp/index.js';
import { startConsole, type AuditSource, type ConsoleServer, type PolicyDescription } from '../../console/index.js';
import type { ConfirmActionHook, MatchedRule, PolicyExplanation } from '../../core/internal.js';
import type { CliOutput } from '../cli-output.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { publishConsole, withdrawConsole } from '../runtime/console-locator.js';
import { describeServerDown } from '../runtime/describe-server-down.js';
import { openGateway, type Gateway } from '../runtime/open-gateway.js';
import type { HttpAccess } from '../runtime/resolve-http-access.js';
import { startRetention } from '../runtime/start-retention.js';
import { startTraceExport } from '../runtime/start-trace-export.js';
import { packageVersion } from '../package-version.js';

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
  const gateway = await openGateway(config, consoleOn ? {} : { prompt: nobodyToAsk(trustedClients.length > 0) });
  let audit: JournalAudit | undefined;
  let consoleServer: ConsoleServer | undefined;
  const tracing = traces?.trace(gateway.registry());
  try {
    for (const warning of gateway.warnings) output.info(`warning: ${warning}`);
    for (const status of gateway.connection.servers()) if (status.state !== 'up') output.info(describeServerDown(status, retriedAt(status)));
    // Said once when a server goes down and once when it is back, not at every retry between.
    const stopDown = gateway.connection.on('server-down', (status) => {
      if (status.failures === 1) output.info(describeServerDown(status, retriedAt(status)));
    });
    const stopUp = gateway.connection.on('server-up', (status) => output.info(`MCP server "${status.server}" is up: ${status.tools} tools offered`));
    if (consoleOn) {
      audit = createJournalAudit(config.journal.path);
      consoleServer = await startConsole({
        registry: gateway.registry(),
        approvals: gateway.approvals,
        audit: auditSource(gateway, audit),
        describePolicy: () => describePolicy(gateway),
        unresolved: () => gateway.journal.unresolved(),
        withheld: {
          list: () => Promise.resolve(gateway.connection.listWithheld()),
          approve: (name, digest) => gateway.connection.approvePin(name, { by: 'console', digest }),
        },
        port: config.console.port,
      });
    }
    // Every call of this gateway is journaled under one run id: `audit tail --run` and `replay` take it.
    const runId = `serve-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const mcp = await serveMcp(gateway.live, {
      transport: http === undefined ? 'stdio' : { kind: 'http', port: http.port, ...(http.access.kind === 'token' ? { token: http.access.token } : {}) },
      context: { ...gateway.context, runId },
      controller: gateway.controller,
      ...(trustedClients.length === 0 ? {} : { elicitation: { trustedClients } }),
      ...(tracing === undefined ? {} : { observeCall: tracing.observeServedCall }),
      name: 'toolgate',
      version: packageVersion(),
    });
    const tools = gateway.registry().list().length;
    output.info(`toolgate gateway: ${tools} tools from ${config.workspace} (${config.scope}, mode ${gateway.controller.mode})`);
    output.info(mcp.url === undefined ? 'MCP: stdio' : `MCP: ${mcp.url}`);
    if (http !== undefined) for (const line of describeAccess(http.access)) output.info(line);
    if (consoleServer !== undefined) {
      try {
        publishConsole(config, consoleServer.url);
      } catch (error) {
        // The console works without it; only `toolgate console` cannot find it.
        output.info(`warning: the console URL could not be saved for \`toolgate console\` (${(error as NodeJS.ErrnoException).code ?? 'write failed'})`);
      }
    }
    output.info(consoleServer === undefined ? 'console: off' : `console: ${consoleServer.url} (\`toolgate console\` prints it again)`);
    output.info(`journal: ${config.journal.path} (anchored in ${anchorPathFor(config.journal.path)}), run ${runId} (\`toolgate audit tail --run ${runId}\`, \`toolgate replay ${runId}\`)`);
    if (traces !== undefined) output.info('traces: OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT');
    const stopRetention = startRetention(gateway, (run) => {
      if (run instanceof Error) output.info(`warning: retention failed, retried within the hour: ${run.message}`);
      else if (run.compactedRows + run.removed > 0) output.info(`retention: ${run.compactedRows} journal rows compacted, ${run.removed} spills and media removed (${run.freedBytes} bytes)`);
    });
    // Over stdio, stdout carries the protocol: the start-up document goes to stderr instead.
    // The MCP token outlives this start: the document names its file, never the token, so a log of stdout does not keep it.
    const started = {
      mcp: mcp.url ?? 'stdio',
      ...(http === undefined ? {} : { auth: http.access.kind === 'token' ? 'bearer' : 'none', ...('file' in http.access ? { tokenFile: http.access.file } : {}) }),
      console: consoleServer?.url,
      tools,
      servers: gateway.connection.servers(),
      journal: config.journal.path,
      runId,
    };
    if (output.json && options.transport !== 'stdio') output.result(started);
    else if (output.json) process.stderr.write(`${JSON.stringify(started)}\n`);
    const running = consoleServer;
    return {
      gateway,
      mcp,
      console: running,
      async close() {
        stopRetention?.();
        stopDown();
        stopUp();
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
    await consoleServer?.close();
    audit?.close();
    await gateway.close();
    tracing?.detach();
    await traces?.shutdown();
    throw error;
  }
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

function auditSource(gateway: Gateway, audit: JournalAudit): AuditSource {
  return {
    list: ({ before, ...filter }) => {
      // The receipts of calls that have returned, batched or not.
      gateway.journal.flush();
      return Promise.resolve(
        audit.list({ ...filter, ...(before === undefined ? {} : { beforeSeq: before }) }).map((entry) => ({ ...entry.receipt, position: entry.chain.position, ...(entry.runId === undefined ? {} : { runId: entry.runId }) })),
      );
    },
    get: (invocationId) => {
      gateway.journal.flush();
      const entry = audit.get(invocationId);
      if (entry === undefined) return Promise.resolve(undefined);
      const receipt = entry.receipt;
      let explanation: PolicyExplanation | readonly MatchedRule[];
      try {
        const registry = gateway.registry();
        const target = registry.get(receipt.tool)?.policyTarget?.(receipt.arguments);
        // The tool's own policy view, so the explanation knows a write from a read.
        const tool = registry.list().find((info) => info.name === receipt.tool && info.version === receipt.version)?.policyView ?? receipt.tool;
        explanation = gateway.policy.current.explain({ tool, args: receipt.arguments, ...(target === undefined ? {} : { target }) });
      } catch {
        explanation = receipt.policy.rules;
      }
      return Promise.resolve({ receipt, chain: { position: entry.chain.position, hash: entry.chain.hash }, explanation });
    },
    // Against the anchor the gateway keeps, so the console's chain status also shows a cut tail or a replaced file.
    verify: () => {
      const anchor = readJournalAnchor(anchorPathFor(gateway.config.journal.path));
      return anchor === undefined ? gateway.journal.verify() : gateway.journal.verify({ anchor });
    },
  };
}

function describePolicy(gateway: Gateway): PolicyDescription {
  const { config } = gateway;
  const snapshot = gateway.policy.current;
  return {
    version: snapshot.version,
    mode: gateway.controller.mode,
    scope: config.scope,
    workspace: config.workspace,
    // What the policy holds: the config's allow, ask, deny and rules, the imported files, the remembered approvals.
    rules: snapshot.rules,
    allowedCommands: config.policy.allowedCommands ?? [],
    allowedCommandGlobs: config.policy.allowedCommandGlobs ?? [],
    allowedDomains: config.policy.allowedDomains ?? [],
    protectedPaths: config.policy.protectedPaths ?? [],
    mcpServers: Object.keys(config.servers),
    // Each upstream's status (up, down, retrying), its last failure and next retry: the console shows it beside the chain.
    servers: gateway.connection.servers(),
    remembered: gateway.controller.remembered(),
    warnings: snapshot.warnings,
  };
}
