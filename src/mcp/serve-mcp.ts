import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ConfirmActionHook, DispatchContext, ToolRegistry } from '../core/index.js';
import { createGatewayServer } from './create-gateway-server.js';
import type { LiveRegistry } from './mcp-types.js';
import { serveHttp, type ServeHttpOptions } from './serve-http.js';

export interface ServeMcpOptions {
  /** `stdio` (default) or Streamable HTTP. */
  readonly transport?: 'stdio' | ({ readonly kind: 'http' } & ServeHttpOptions);
  /**
   * The dispatch context of every call: `grantedTools` (absent ⇒ nothing is
   * granted), `agent`, `limits`, `config`, `runId`… The signal, progress and
   * approval hook are set per call.
   */
  readonly context?: Omit<DispatchContext, 'signal'>;
  /** Approves calls when the client cannot elicit (the console or the CLI); default `context.approval.confirm`. Absent ⇒ such calls fail closed. */
  readonly approver?: ConfirmActionHook;
  /** Ask through MCP elicitation when the client declares it. Default true. */
  readonly elicitation?: boolean;
  readonly name?: string;
  readonly version?: string;
  /** For stdio: the streams (default the process's). */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}

export interface McpGateway {
  /** The HTTP endpoint, when serving HTTP. */
  readonly url: string | undefined;
  close(): Promise<void>;
}

/**
 * Serve a registry (or a live one that follows upstream changes) to MCP
 * clients. `tools/list` answers from the cached projection, filtered by the
 * grants and identity policy; `tools/call` runs the full pipeline under the
 * interactive approval regime.
 */
export async function serveMcp(registry: ToolRegistry | LiveRegistry, options: ServeMcpOptions = {}): Promise<McpGateway> {
  const source = toLive(registry);
  const context: DispatchContext = options.context ?? {};
  const prefix = `mcp-${randomBytes(4).toString('hex')}`;
  let sessions = 0;
  const createSession = (): ReturnType<typeof createGatewayServer> => {
    sessions += 1;
    return createGatewayServer({
      source,
      context,
      approver: options.approver ?? context.approval?.confirm,
      elicitation: options.elicitation ?? true,
      name: options.name ?? 'toolgate',
      version: options.version ?? '0.1.0',
      callIdPrefix: `${prefix}-${sessions.toString(36)}`,
    });
  };
  const transport = options.transport ?? 'stdio';
  if (transport === 'stdio') {
    const { server, detach } = createSession();
    await server.connect(new StdioServerTransport(options.stdin, options.stdout));
    return {
      url: undefined,
      async close() {
        detach();
        await server.close();
      },
    };
  }
  const listener = await serveHttp(transport, createSession);
  return { url: listener.url, close: () => listener.close() };
}

function toLive(registry: ToolRegistry | LiveRegistry): LiveRegistry {
  if ('current' in registry && typeof registry.current === 'function') return registry;
  const fixed = registry as ToolRegistry;
  return { current: () => fixed, subscribe: () => () => undefined };
}
