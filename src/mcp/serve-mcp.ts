import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ConfigurationError, type ConfirmActionHook, type DispatchContext, type ToolRegistry } from '../core/internal.js';
import type { ApprovalChannels, ElicitationTrust, ServedApprovals } from './choose-served-confirm.js';
import { createGatewayServer } from './create-gateway-server.js';
import { DEFAULT_MAX_MEDIA_BYTES } from './media-content-blocks.js';
import type { LiveRegistry } from './mcp-types.js';
import type { ObserveServedCall } from './observe-served-call.js';
import { refuseReusedRequestIds } from './refuse-reused-request-ids.js';
import { routePastMessageSwitch } from './route-past-message-switch.js';
import { createServedCalls, SETTLE_ON_CLOSE_MS } from './served-calls.js';
import type { ServeHttpOptions } from './serve-http.js';
import { DEFAULT_MAX_UNREAD_BYTES } from './bound-stdio-writes.js';
import { useLeanFraming } from './use-lean-framing.js';
import { useJsonLineWriting } from './write-json-line.js';

export interface ServeMcpOptions {
  /** `stdio` (default) or Streamable HTTP. */
  readonly transport?: 'stdio' | ({ readonly kind: 'http' } & ServeHttpOptions);
  /**
   * The dispatch context of every call: `grantedTools` (absent ⇒ nothing is
   * granted), `agent`, `limits`, `config`, `runId`… The signal, progress and
   * approval hook are set per call.
   */
  readonly context?: Omit<DispatchContext, 'signal'>;
  /**
   * The approval controller (`createConfirm`). Its mode logic decides every
   * call; what it leaves to a person goes to its own prompt (the console),
   * or, for a client trusted in `elicitation`, to that client's elicitation
   * through `controller.confirmWith`. Not with `approver`.
   */
  readonly controller?: ApprovalChannels;
  /**
   * Without a controller: a plain confirm hook used as is for every call;
   * the client is never asked, as its answer could not be put behind a mode.
   * Default `context.approval.confirm`. Absent ⇒ calls that need an
   * approval are denied (`no_approval_hook`).
   */
  readonly approver?: ConfirmActionHook;
  /**
   * The clients asked through MCP elicitation (when they declare it), by
   * their declared name; `"*"` for all. Absent ⇒ no client is asked.
   * Needs a `controller`.
   */
  readonly elicitation?: ElicitationTrust;
  /**
   * The most bytes of media (images, audio, binary resources) one result
   * sends its client, read back from the registry host's media store.
   * Past it the client gets the text that names each by its handle, and a
   * line that says the media were not sent. Default 8 MiB; 0 sends none.
   */
  readonly maxMediaBytes?: number;
  /** Wraps every `tools/call` with what the gateway knows of it (session, transport): how `toolgate/otel` opens a call's span. */
  readonly observeCall?: ObserveServedCall;
  readonly name?: string;
  readonly version?: string;
  /** For stdio: the streams (default the process's). */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /**
   * For stdio: the most bytes the client may leave unread on `stdout` when
   * the gateway has another message for it. Past it the session ends as
   * when `stdin` ends, and `stdin` is destroyed. Default 64 MiB. Past 1 MiB
   * (or a quarter of this bound) unread, `stdin` is not read until the
   * client catches up.
   */
  readonly maxUnreadBytes?: number;
}

export interface McpGateway {
  /** The HTTP endpoint, when serving HTTP. */
  readonly url: string | undefined;
  /** What the gateway holds now: open sessions, and sessions subscribed to the registry's changes. A closed session holds neither. */
  stats(): { readonly sessions: number; readonly subscribed: number };
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
  const approvals = servedApprovals(options, context);
  const maxMediaBytes = options.maxMediaBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  if (!Number.isSafeInteger(maxMediaBytes) || maxMediaBytes < 0) throw new ConfigurationError('maxMediaBytes', 'must be a whole number of bytes, 0 or more');
  const prefix = `mcp-${randomBytes(4).toString('hex')}`;
  let sessions = 0;
  let subscribed = 0;
  const calls = createServedCalls();
  const transport = options.transport ?? 'stdio';
  const createSession = (): ReturnType<typeof createGatewayServer> => {
    sessions += 1;
    const session = createGatewayServer({
      source,
      context,
      approvals,
      name: options.name ?? 'toolgate',
      version: options.version ?? '0.1.0',
      callIdPrefix: `${prefix}-${sessions.toString(36)}`,
      transport: transport === 'stdio' ? 'stdio' : 'http',
      observe: options.observeCall,
      maxMediaBytes,
      calls,
    });
    subscribed += 1;
    let attached = true;
    const detach = (): void => {
      if (attached) subscribed -= 1;
      attached = false;
      session.detach();
    };
    return { server: session.server, detach };
  };
  if (transport === 'stdio') {
    const maxUnreadBytes = options.maxUnreadBytes ?? DEFAULT_MAX_UNREAD_BYTES;
    if (!Number.isSafeInteger(maxUnreadBytes) || maxUnreadBytes < 1024) throw new ConfigurationError('maxUnreadBytes', 'must be an integer of at least 1024');
    const { server, detach } = createSession();
    const stdin = options.stdin ?? process.stdin;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        stdin.off('end', onEnd);
        stdin.off('close', onEnd);
        detach();
        await server.close();
        await calls.settled(SETTLE_ON_CLOSE_MS);
      })());
    // The SDK's stdio transport does not notice the client going away. Its end closes the session, which aborts the
    // calls in flight: their pending approvals are withdrawn, never left for someone to approve later.
    const onEnd = (): void => void close();
    stdin.once('end', onEnd);
    stdin.once('close', onEnd);
    const stdout = options.stdout ?? process.stdout;
    const stdio = new StdioServerTransport(stdin, stdout);
    useLeanFraming(stdio, STDIO_DEFAULT_MAX_BUFFER_SIZE);
    // A client that leaves this much unread is gone as far as the gateway can tell: its session ends as at the end of
    // stdin, whose close tells the process serving it (`toolgate serve --stdio`) to stop.
    useJsonLineWriting(stdio, { stdin, stdout, maxUnreadBytes, onOverflow: () => stdin.destroy() });
    await server.connect(stdio);
    routePastMessageSwitch(server, stdio);
    refuseReusedRequestIds(server, stdio);
    return { url: undefined, stats: () => ({ sessions: closing === undefined ? 1 : 0, subscribed }), close };
  }
  // The HTTP transport (and the SDK's) loads only for a gateway served over HTTP: a stdio gateway starts without it.
  const { serveHttp } = await import('./serve-http.js');
  const listener = await serveHttp(transport, createSession);
  return { url: listener.url, stats: () => ({ sessions: listener.sessions(), subscribed }), close: async () => {
      await listener.close();
      await calls.settled(SETTLE_ON_CLOSE_MS);
    },
  };
}

function servedApprovals(options: ServeMcpOptions, context: DispatchContext): ServedApprovals {
  if (options.controller !== undefined && options.approver !== undefined) throw new ConfigurationError('approver', 'give a controller or an approver, not both');
  const trust = options.elicitation;
  if (trust !== undefined) {
    if (!Array.isArray(trust.trustedClients) || !trust.trustedClients.every((name) => typeof name === 'string' && name.length > 0)) {
      throw new ConfigurationError('elicitation.trustedClients', 'must be an array of client names');
    }
    // A client's answer without the mode logic would be the decision itself: elicitation is asked only behind a controller.
    if (options.controller === undefined) throw new ConfigurationError('elicitation', 'needs a controller (createConfirm), so the mode decides before any client is asked');
  }
  return { controller: options.controller, approver: options.approver ?? context.approval?.confirm, elicitation: trust };
}

function toLive(registry: ToolRegistry | LiveRegistry): LiveRegistry {
  if ('current' in registry && typeof registry.current === 'function') return registry;
  const fixed = registry as ToolRegistry;
  return { current: () => fixed, subscribe: () => () => undefined };
}
