import { createPolicy, createToolRegistry, type AnyToolDefinition, type ToolHost, type ToolPolicy } from '../core/internal.js';
import { connectMcpServers } from './connect-mcp-servers.js';
import { createJsonFilePinStore } from './create-json-file-pin-store.js';
import type { ConnectMcpServersOptions, McpConnection, McpServerConfig } from './mcp-types.js';
import { serveMcp, type McpGateway, type ServeMcpOptions } from './serve-mcp.js';

export interface StartMcpGatewayOptions {
  readonly servers: readonly McpServerConfig[];
  /** JSON file of approved definition digests. Absent ⇒ pins live in memory. */
  readonly pinFile?: string;
  readonly pinning?: ConnectMcpServersOptions['pinning'];
  readonly fetch?: ConnectMcpServersOptions['fetch'];
  /** Local tools served beside the upstream ones (the built-ins). */
  readonly tools?: readonly AnyToolDefinition[];
  /** The host of the local tools; `mcp` is set to the upstream capability. */
  readonly host?: ToolHost;
  /** Default: the guardrail floor with the configured servers as its MCP server allowlist (`createPolicy({ mcpServers })`). */
  readonly policy?: ToolPolicy;
  /** Names granted to clients. Absent ⇒ every tool offered at start. */
  readonly grantedTools?: readonly string[];
  readonly serve?: ServeMcpOptions;
}

export interface StartedMcpGateway {
  readonly gateway: McpGateway;
  readonly connection: McpConnection;
  close(): Promise<void>;
}

/** Connect the upstreams, build the registry and serve it: the gateway `toolgate serve` runs. */
export async function startMcpGateway(options: StartMcpGatewayOptions): Promise<StartedMcpGateway> {
  const connection = await connectMcpServers({
    servers: options.servers,
    ...(options.pinFile === undefined ? {} : { pins: createJsonFilePinStore(options.pinFile) }),
    ...(options.pinning === undefined ? {} : { pinning: options.pinning }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  try {
    const base = createToolRegistry({
      tools: options.tools ?? [],
      host: { ...options.host, mcp: connection.capability },
      hooks: { guards: [connection.mcpCallGuard] },
      // Upstream tools are MCP egress by default, and the floor calls only the servers it names: these are the configured ones.
      policy: options.policy ?? createPolicy({ mcpServers: options.servers.map((server) => server.name) }),
    });
    const live = connection.live(base);
    const granted = options.grantedTools ?? live.current().list().map((info) => info.key);
    const gateway = await serveMcp(live, { ...options.serve, context: { ...options.serve?.context, grantedTools: granted } });
    return {
      gateway,
      connection,
      async close() {
        await gateway.close();
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
