import { homedir } from 'node:os';
import { join } from 'node:path';
import {
  ConfigurationError,
  createConfirm,
  createLivePolicy,
  createToolRegistry,
  type AnyToolDefinition,
  type ApprovalController,
  type DispatchContext,
  type LivePolicy,
  type ConfirmActionHook,
  type ToolRegistry,
} from '../../core/internal.js';
// Each piece from its own module, not a package's index: a command that opens the gateway loads what it uses and
// no more (a call with no upstream server starts without the MCP SDK; see start-upstream-server.ts).
import { connectMcpServers } from '../../mcp/connect-mcp-servers.js';
import { createJsonFilePinStore } from '../../mcp/create-json-file-pin-store.js';
import type { LiveRegistry, McpConnection, McpConnectionEventMap, McpServerConfig } from '../../mcp/mcp-types.js';
import { checkServerGovernance } from '../../mcp/upstream-governance.js';
import { createNodeHost } from '../../node/create-node-host.js';
import type { NodeHost } from '../../node/node-host-types.js';
import { createRulePersister } from '../../node/policy/policy-file.js';
import { builtinTools } from '../../node/tools/builtin-tools.js';
import { anchorPathFor, type SqliteJournal } from '../../journal/sqlite/index.js';
import { refuseTrackedJournal } from './refuse-tracked-journal.js';
import { openVouchedJournal } from './vouch-journal.js';
import { createApprovalQueue, type ApprovalQueue } from '../../console/approval-queue.js';
import { CliError } from '../cli-error.js';
import type { ResolvedConfig } from '../config/config-types.js';
import { buildPolicy, REMEMBERED_RULE_PREFIX } from './build-policy.js';
import { diffForWrite } from './diff-for-write.js';
import { gatewayHostOptions, gatewaySpillDir, prepareGatewayStateFolder, prepareUserStateFolder, userStateFolder } from './gateway-host-options.js';
import { writeNpmScriptShell } from './npm-script-shell.js';
import { launcherArgs, launcherEnv, refusedLauncher } from './upstream-launcher.js';
import { registryLimits } from './registry-limits.js';
import { vouchSigningKey } from './vouch-signing-key.js';

/** Everything a running gateway holds: one host, one live policy, one journal, the upstream servers and the approvals. */
export interface Gateway {
  readonly config: ResolvedConfig;
  readonly host: NodeHost;
  /** The host's spill directory: `runs/` (spilled outputs), `media/`, `bin/`. */
  readonly spillDir: string;
  readonly policy: LivePolicy;
  readonly journal: SqliteJournal;
  readonly approvals: ApprovalQueue;
  readonly controller: ApprovalController;
  readonly connection: McpConnection;
  readonly live: LiveRegistry;
  /** The dispatch context of every call through this gateway; its grants follow the offered tools. */
  readonly context: DispatchContext;
  readonly warnings: readonly string[];
  registry(): ToolRegistry;
  close(): Promise<void>;
}

export interface OpenGatewayOptions {
  /**
   * The human approver behind the mode logic; default: the console's
   * approval queue. One that has nobody to ask answers with `noApprover`.
   */
  readonly prompt?: ConfirmActionHook;
  /** Connect the configured upstream MCP servers. Default true. */
  readonly connectServers?: boolean;
  /** Journal every call, so a run can be replayed. Default true. */
  readonly recordAll?: boolean;
  /**
   * Journal the calls made through the registry. Default true. `policy
   * explain` takes a call up to its approval and refuses it there, so it
   * has nothing to record.
   */
  readonly journalCalls?: boolean;
  /**
   * Files of this gateway's that the command line named rather than the
   * configuration (the HTTP token `serve --token-file` reads): refused to
   * every tool and masked in the sandbox, as `.toolgate/` is.
   */
  readonly ownFiles?: readonly string[];
}

/** The built-in tools the config serves: all of them unless `tools.enable` / `tools.disable` say otherwise. */
export function servedBuiltins(config: ResolvedConfig): AnyToolDefinition[] {
  const enable = config.tools.enable;
  const disable = new Set(config.tools.disable ?? []);
  const known = new Set(builtinTools.map((tool) => tool.name));
  for (const name of [...(enable ?? []), ...disable]) {
    if (!known.has(name)) throw new CliError('config', `${config.file ?? 'The configuration'}: tools names an unknown built-in tool "${name}".`);
  }
  return builtinTools.filter((tool) => (enable === undefined || enable.includes(tool.name)) && !disable.has(tool.name));
}

/**
 * The configured servers as the MCP layer takes them. Every server's tools
 * are governed unless the server is trusted and a tool read-only, or its
 * `tools` say otherwise; `targets` and the shipped table say which arguments
 * the policy judges. A setting that cannot hold is refused here, by its key.
 */
function upstreamConfigs(config: ResolvedConfig): McpServerConfig[] {
  const file = config.file ?? 'The configuration';
  return Object.entries(config.servers).map(([name, server]): McpServerConfig => {
    const common = {
      name,
      ...(server.trust === undefined ? {} : { trust: server.trust }),
      ...(server.trusted === undefined ? {} : { trusted: server.trusted }),
      ...(server.bounded === true ? { schemaProfile: 'bounded' as const } : {}),
      ...(server.tools === undefined ? {} : { tools: server.tools }),
      ...(server.targets === undefined ? {} : { targets: server.targets }),
      ...definedOf(server, ['connectTimeoutMs', 'timeoutMs', 'maxTotalTimeoutMs']),
    };
    const pipeBounds = definedOf(server, ['maxMessageBytes', 'maxUnreadBytes']);
    let upstream: McpServerConfig;
    if (server.url !== undefined) {
      // The two bounds are of a child's pipes; over HTTP the SDK reads each response whole, and a setting that does nothing is refused rather than trusted.
      const stdioOnly = Object.keys(pipeBounds)[0];
      if (stdioOnly !== undefined) throw new CliError('config', `${file}: servers.${name}.${stdioOnly} applies only to a server started with a command.`);
      upstream = { ...common, transport: 'http', url: server.url, ...(server.local === undefined ? {} : { local: server.local }) };
    } else if (server.command === undefined) throw new CliError('config', `${file}: servers.${name} needs a command or a url.`);
    else {
      // Started in the workspace, whose relative paths its arguments name; the code it runs is never the workspace's.
      const refused = refusedLauncher(server.command, server.args ?? [], server.env);
      if (refused !== undefined) throw new CliError('config', `${file}: servers.${name}: ${refused}.`);
      const neutral = userStateFolder(config, homedir());
      const args = launcherArgs(server.command, server.args ?? [], neutral, server.env);
      // The shell npx and `npm exec` are told to run the package's command through (`--script-shell`).
      if (args.some((arg) => arg.startsWith('--script-shell='))) writeNpmScriptShell(neutral);
      upstream = { ...common, transport: 'stdio', command: server.command, args, env: launcherEnv(server.env), cwd: config.workspace, ...pipeBounds };
    }
    try {
      checkServerGovernance(upstream, `servers.${name}`);
    } catch (error) {
      throw new CliError('config', `${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return upstream;
  });
}

/**
 * The configured upstream servers (none unless `connect`), with the
 * workspace's pinned definitions: the tools as the gateway offers them.
 * `onSkipped` hears of each upstream tool left out as they start (a schema
 * that does not compile, a name another tool holds).
 */
export function connectUpstreams(config: ResolvedConfig, connect = true, onSkipped?: (message: string) => void): Promise<McpConnection> {
  // npx and `npm exec` are given the user's state folder as their prefix (`launcherArgs`): npm refuses a prefix that
  // does not exist, so it is made first, whichever command connects (`replay` does without opening a gateway).
  if (connect) prepareUserStateFolder(config);
  return connectMcpServers({
    servers: connect ? upstreamConfigs(config) : [],
    pins: createJsonFilePinStore(join(config.workspace, '.toolgate', 'mcp-pins.json')),
    ...(onSkipped === undefined
      ? {}
      : {
          onEvent: (event: string, payload: unknown) => {
            if (event === 'tool-skipped') onSkipped(skippedText(payload as McpConnectionEventMap['tool-skipped']));
          },
        }),
  });
}

function skippedText(skipped: McpConnectionEventMap['tool-skipped']): string {
  return `MCP tool ${skipped.server}/${skipped.tool} is not offered: ${skipped.error.message}`;
}

/** What `open` makes; a setting the workspace makes impossible (a spill or key folder that is a link) is a configuration error. */
function asConfigError<T>(open: () => T): T {
  try {
    return open();
  } catch (error) {
    if (error instanceof ConfigurationError) throw new CliError('config', error.message, { cause: error });
    throw error;
  }
}

/**
 * Open the gateway a configuration describes: the Node host jailed to the
 * workspace, the policy (live, so a reload can narrow it), the SQLite
 * journal, the upstream MCP servers with pinned definitions, and the
 * approval controller whose human is the console (or the terminal).
 */
export async function openGateway(config: ResolvedConfig, options: OpenGatewayOptions = {}): Promise<Gateway> {
  prepareGatewayStateFolder(config);
  // Before anything is opened: a signing key the repository shipped refuses the start.
  const vouchOpenedKey = vouchSigningKey(config);
  const built = await buildPolicy(config);
  const policy = createLivePolicy(built.snapshot);
  const spillDir = gatewaySpillDir(config);
  prepareUserStateFolder(config);
  const host = asConfigError(() => createNodeHost(gatewayHostOptions(config, undefined, options.ownFiles)));
  const approvals = createApprovalQueue({ enrich: (request) => diffForWrite(host.fs, request), timeoutMs: config.approvals.timeoutSeconds * 1000 });
  const prompt = options.prompt ?? approvals.confirm;
  const controller = createConfirm({
    mode: config.mode,
    policy,
    prompt: (request, _context, signal) => prompt(request, signal),
    remember: {
      persist: createRulePersister({ projectRoot: config.workspace, home: homedir() }).persist,
      source: 'project',
      // An earlier "always" approval wrote an allow rule: it stands in for the prompt, never for a protected path.
      persisted: (rule) => rule.id.startsWith(REMEMBERED_RULE_PREFIX),
    },
  });
  const warnings = [...built.warnings];
  refuseTrackedJournal(config.workspace, config.journal.path);
  // Every process that writes the journal keeps its anchor, so `audit verify` can tell a cut tail or a replaced file.
  // Never one a workspace arrived with: its author's rows would pass for this user's, its claims hold this user's calls.
  const journal = asConfigError(() => openVouchedJournal(config, {
    recordAll: options.recordAll ?? true,
    ...(config.journal.maxValueBytes === undefined ? {} : { maxRecordedValueBytes: config.journal.maxValueBytes }),
    sign: config.journal.sign && (config.journal.signEveryMs === undefined ? true : { signEveryMs: config.journal.signEveryMs }),
    anchor: anchorPathFor(config.journal.path),
    onUnresolved: (claims) => {
      if (claims.length > 0) warnings.push(`${claims.length} unresolved claim(s) in the journal: a call started and never settled, and the same action is refused until you resolve it (toolgate audit unresolved; toolgate audit resolve <claim> --as failed|done)`);
    },
  }));
  try {
    vouchOpenedKey(journal);
  } catch (error) {
    journal.close();
    throw error;
  }
  const headProblem = journal.headProblem();
  if (headProblem !== undefined) warnings.push(`${headProblem} Until then every journaled call is refused.`);
  let connection: McpConnection | undefined;
  try {
    // Said once as the gateway starts; a tool left out later is told by the connection's events.
    let started = false;
    connection = await connectUpstreams(config, options.connectServers !== false, (message) => {
      if (!started) warnings.push(message);
    });
    started = true;
    const base = createToolRegistry({
      tools: servedBuiltins(config),
      host: { ...host, mcp: host.holdingRepositories(connection.capability) },
      policy,
      ...(options.journalCalls === false ? {} : { journal }),
      hooks: { around: [policy.guardStart], guards: [connection.mcpCallGuard] },
      limits: registryLimits(config),
    });
    const live = connection.live(base);
    // The operator granted what the config serves: the grant set follows the offered tools as upstreams change.
    const granted = new Set(live.current().list().map((info) => info.key));
    live.subscribe((registry) => {
      granted.clear();
      for (const info of registry.list()) granted.add(info.key);
    });
    const context: DispatchContext = { agent: config.agent, grantedTools: granted, approval: { confirm: controller.confirm } };
    const opened = connection;
    return {
      config,
      host,
      spillDir,
      policy,
      journal,
      approvals,
      controller,
      connection: opened,
      live,
      context,
      warnings,
      registry: () => live.current(),
      async close() {
        await opened.close();
        await host.close();
        journal.close();
      },
    };
  } catch (error) {
    await connection?.close();
    await host.close();
    journal.close();
    throw error;
  }
}

/** A server as the configuration file gives it. */
type ConfiguredServer = ResolvedConfig['servers'][string];

/** The keys of `server` among `keys` that the configuration sets, for a spread that leaves the others to the MCP layer's defaults. */
function definedOf<TKey extends keyof ConfiguredServer>(server: ConfiguredServer, keys: readonly TKey[]): Partial<Pick<ConfiguredServer, TKey>> {
  return Object.fromEntries(keys.filter((key) => server[key] !== undefined).map((key) => [key, server[key]])) as Partial<Pick<ConfiguredServer, TKey>>;
}
