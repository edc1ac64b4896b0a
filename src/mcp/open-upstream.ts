import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../core/internal.js';
import { upstreamStdioEnv } from './recognised-server-env.js';
import { createStderrTail, type StderrTail } from './create-stderr-tail.js';
import { attachLeanToolsCall } from './lean-tools-call.js';
import { McpServerUnavailableError } from './mcp-server-unavailable-error.js';
import { routePastMessageSwitch } from './route-past-message-switch.js';
import { markUpstreamErrorResponses } from './upstream-error-response.js';
import { DEFAULT_MAX_UNREAD_BYTES, noteUpstreamCloseReason, unreadOverflowReason, useBoundedClientWriting } from './bound-stdio-writes.js';
import { UNCOMPILED_OUTPUT_SCHEMAS } from './uncompiled-output-schemas.js';
import { useLeanFraming } from './use-lean-framing.js';
import type { ConnectMcpServersOptions, McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from './mcp-types.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface OpenUpstreamOptions {
  readonly server: McpServerConfig;
  readonly connect: ConnectMcpServersOptions;
  /** Called on `notifications/tools/list_changed`. */
  readonly onToolsChanged: () => void;
  /** The handshake's deadline. */
  readonly timeoutMs: number;
}

export interface OpenedUpstream {
  readonly client: Client;
  /** The newest lines of a stdio upstream's stderr; empty for HTTP. */
  readonly stderr: StderrTail;
}

const NO_STDERR: StderrTail = { text: () => '' };

/**
 * Connect one upstream and complete the MCP handshake. A configuration
 * mistake throws as it is, before anything is started; a server that does
 * not start or answer in time throws `McpServerUnavailableError`, with the
 * tail of its stderr.
 */
export async function openUpstream(options: OpenUpstreamOptions): Promise<OpenedUpstream> {
  const { server, connect } = options;
  const transport = createTransport(server, connect);
  const stderr =
    transport instanceof StdioClientTransport && server.transport === 'stdio'
      ? createStderrTail(transport.stderr, connect.stderr === 'inherit' ? process.stderr : undefined, Object.values(server.env ?? {}))
      : NO_STDERR;
  const client = new Client({ name: connect.clientName ?? 'toolgate', version: '0.1.0' }, { capabilities: {}, jsonSchemaValidator: UNCOMPILED_OUTPUT_SCHEMAS });
  if (transport instanceof StdioClientTransport && server.transport === 'stdio') {
    // An upstream that stops reading what the gateway writes it is closed past this bound, as if it had exited.
    const maxUnread = maxUnreadBytes(server);
    useBoundedClientWriting(transport, maxUnread, () => noteUpstreamCloseReason(client, unreadOverflowReason(maxUnread)));
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    options.onToolsChanged();
  });
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw await unavailable(server.name, error, stderr);
  }
  if (transport instanceof StdioClientTransport) {
    routePastMessageSwitch(client, transport);
    attachLeanToolsCall(client, transport);
  }
  markUpstreamErrorResponses(transport);
  return { client, stderr };
}

/** The failure with what the server wrote last: read once the pipe has delivered what the exit left in it. */
export async function unavailable(server: string, error: unknown, stderr: StderrTail): Promise<McpServerUnavailableError> {
  await new Promise((resolve) => setImmediate(resolve));
  return new McpServerUnavailableError(server, error, stderr.text());
}

function createTransport(server: McpServerConfig, connect: ConnectMcpServersOptions): Transport {
  if (server.transport === 'stdio') {
    if (typeof server.command !== 'string' || server.command.length === 0) throw new ConfigurationError(`servers.${server.name}.command`, 'must be a non-empty string');
    const maxBufferSize = maxMessageBytes(server);
    const stdio = new StdioClientTransport({
      command: server.command,
      args: [...(server.args ?? [])],
      env: upstreamStdioEnv(server),
      ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
      maxBufferSize,
      // Always read: its tail is what says why a server failed to start or stopped.
      stderr: 'pipe',
    });
    useLeanFraming(stdio, maxBufferSize);
    return stdio;
  }
  const url = checkHttpUrl(server);
  const fetch = server.local === true ? undefined : connect.fetch;
  if (server.local !== true && fetch === undefined) {
    throw new ConfigurationError(`servers.${server.name}.url`, 'is not local, and no egress guard (options.fetch) was given to reach it');
  }
  return new StreamableHTTPClientTransport(url, {
    ...(fetch === undefined ? {} : { fetch }),
    ...(server.headers === undefined ? {} : { requestInit: { headers: { ...server.headers } } }),
  });
}

/** The SDK's read buffer holds at most one message; its bound is this server's largest message. */
function maxMessageBytes(server: McpStdioServerConfig): number {
  const bytes = server.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(bytes) || bytes < 1024) throw new ConfigurationError(`servers.${server.name}.maxMessageBytes`, 'must be an integer of at least 1024');
  return bytes;
}

/** What the upstream may leave unread of the gateway's messages before the gateway closes it. */
function maxUnreadBytes(server: McpStdioServerConfig): number {
  const bytes = server.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES;
  if (!Number.isSafeInteger(bytes) || bytes < 1024) throw new ConfigurationError(`servers.${server.name}.maxUnreadBytes`, 'must be an integer of at least 1024');
  return bytes;
}

/** `local` is a promise that the server is on this machine; hold it to that. Remote servers must use https. */
function checkHttpUrl(server: McpHttpServerConfig): URL {
  const field = `servers.${server.name}.url`;
  let url: URL;
  try {
    url = new URL(server.url);
  } catch {
    throw new ConfigurationError(field, 'is not a valid URL');
  }
  if (url.username !== '' || url.password !== '') throw new ConfigurationError(field, 'must not carry credentials; use headers');
  if (server.local === true) {
    if (!LOOPBACK.has(url.hostname) || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new ConfigurationError(field, 'is marked local but is not a loopback http(s) URL');
    }
  } else if (url.protocol !== 'https:') {
    throw new ConfigurationError(field, 'must use https (or mark a loopback server local)');
  }
  return url;
}
