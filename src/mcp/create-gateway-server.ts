import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalSession, DispatchContext } from '../core/internal.js';
import { callServedTool, prepareServedContext } from './call-served-tool.js';
import type { ServedApprovals } from './choose-served-confirm.js';
import { listServedTools, servedToolsPage } from './list-served-tools.js';
import type { LiveRegistry } from './mcp-types.js';
import type { ObserveServedCall } from './observe-served-call.js';
import type { ServedCalls } from './served-calls.js';
import { setCallToolHandler } from './read-call-tool-request.js';
import { servedApprovalSession } from './served-approval-session.js';

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

/**
 * One MCP server session over a live registry: `tools/list` and `tools/call`,
 * and `list_changed` on every new snapshot. Its calls are approved as its
 * own (`approval.session`): a session approval a person gives one of them
 * stands in for this session's calls only, and `detach`, as the session
 * ends, drops what was remembered for it.
 */
export function createGatewayServer(options: CreateGatewayServerOptions): { server: Server; detach: () => void } {
  const server = new Server({ name: options.name, version: options.version }, { capabilities: { tools: { listChanged: true } } });
  let calls = 0;
  const callContext = prepareServedContext(options.context);
  // Over HTTP, the transport's `mcp-session-id`; over stdio, the one client the gateway has: an id of its own. Made at
  // its first call, once `initialize` has told what the client is, and kept: a call reads it, never builds it again.
  let session: ApprovalSession | undefined;
  const sessionOf = (id: string | undefined): ApprovalSession => (session ??= servedApprovalSession(server, id ?? randomUUID()));
  server.setRequestHandler(ListToolsRequestSchema, (request) => servedToolsPage(listServedTools(options.source.current(), options.context), request.params?.cursor));
  setCallToolHandler(server, (request, extra) => {
    calls += 1;
    const callId = `${options.callIdPrefix}-${calls.toString(36)}`;
    const session = sessionOf(extra.sessionId);
    const run = (): Promise<CallToolResult> =>
      callServedTool(request, extra, { source: options.source, server, context: callContext, approvals: options.approvals, callId, session, maxMediaBytes: options.maxMediaBytes, writesKeptJson: options.transport === 'stdio' });
    if (options.observe === undefined) return options.calls.track(run());
    return options.calls.track(options.observe({ callId, tool: request.name, requestId: extra.requestId, sessionId: extra.sessionId, transport: options.transport }, run));
  });
  const detachList = options.source.subscribe(() => {
    if (server.transport === undefined) return;
    server.sendToolListChanged().catch(() => undefined);
  });
  const forget = (): void => {
    detachList();
    if (session !== undefined) options.approvals.controller?.forgetSession?.(session.id);
  };
  return { server, detach: forget };
}
