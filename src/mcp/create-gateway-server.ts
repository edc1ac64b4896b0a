import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DispatchContext } from '../core/internal.js';
import { callServedTool, prepareServedContext } from './call-served-tool.js';
import type { ServedApprovals } from './choose-served-confirm.js';
import { listServedTools, servedToolsPage } from './list-served-tools.js';
import type { LiveRegistry } from './mcp-types.js';
import type { ObserveServedCall } from './observe-served-call.js';
import type { ServedCalls } from './served-calls.js';
import { setCallToolHandler } from './read-call-tool-request.js';

export interface CreateGatewayServerOptions {
  readonly source: LiveRegistry;
  readonly context: DispatchContext;
  readonly approvals: ServedApprovals;
  readonly name: string;
  readonly version: string;
  /** Prefix of call ids, unique per client connection. */
  readonly callIdPrefix: string;
  readonly transport: 'stdio' | 'http';
  readonly observe: ObserveServedCall | undefined;
  /** The most bytes of media one result sends. */
  readonly maxMediaBytes: number;
  /** Where each call is counted while it runs, so that closing the gateway waits for it. */
  readonly calls: ServedCalls;
}

/** One MCP server session over a live registry: `tools/list` and `tools/call`, and `list_changed` on every new snapshot. */
export function createGatewayServer(options: CreateGatewayServerOptions): { server: Server; detach: () => void } {
  const server = new Server({ name: options.name, version: options.version }, { capabilities: { tools: { listChanged: true } } });
  let calls = 0;
  const callContext = prepareServedContext(options.context);
  server.setRequestHandler(ListToolsRequestSchema, (request) => servedToolsPage(listServedTools(options.source.current(), options.context), request.params?.cursor));
  setCallToolHandler(server, (request, extra) => {
    calls += 1;
    const callId = `${options.callIdPrefix}-${calls.toString(36)}`;
    const run = (): Promise<CallToolResult> => callServedTool(request, extra, { source: options.source, server, context: callContext, approvals: options.approvals, callId, maxMediaBytes: options.maxMediaBytes });
    if (options.observe === undefined) return options.calls.track(run());
    return options.calls.track(options.observe({ callId, tool: request.name, requestId: extra.requestId, sessionId: extra.sessionId, transport: options.transport }, run));
  });
  const detach = options.source.subscribe(() => {
    if (server.transport === undefined) return;
    server.sendToolListChanged().catch(() => undefined);
  });
  return { server, detach };
}
