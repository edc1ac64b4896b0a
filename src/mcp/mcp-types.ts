import type { AnyToolDefinition, JsonSchema, McpCapability, ToolGuard, ToolRegistry, ToolgateError } from '../core/internal.js';
import type { McpArgumentTargets } from './argument-targets.js';
import type { McpPinStore } from './pin-store.js';

/** What every upstream server configuration shares. */
interface McpServerBase {
  /** The server's name in tool names (`mcp_{name}_{tool}`): lowercase letters, digits and `_`. */
  readonly name: string;
  /**
   * `annotations`: the server is trusted. Its annotations are facts (a tool
   * whose `readOnlyHint` is true and `destructiveHint` not true is read-only,
   * and so not governed), and its schemas are used as they are. `none`
   * (default): only the cautious hints (destructive, open-world) are kept,
   * and every tool is governed.
   */
  readonly trust?: 'none' | 'annotations';
  /** The older spelling of `trust`: `true` is `annotations`, `false` is `none`. Giving both, they must agree. */
  readonly trusted?: boolean;
  /** Enforce the bounded JSON Schema subset on this server's tool schemas; a tool that breaks it is skipped and reported. */
  readonly schemaProfile?: 'bounded';
  /**
   * Mark the server's tools as MCP egress (`policy.egress: 'mcp'`): every
   * call is a governed action (approval under an active regime) and the
   * policy's MCP server allowlist applies. Default true (fail closed): only a
   * trusted read-only tool, or one `tools` marks `governed: false`, is not.
   * `false` leaves the policy's rules, grants and risk thresholds to decide;
   * a tool that writes the paths its targets name is governed whatever this says.
   */
  readonly governed?: boolean;
  /**
   * Argument targets per upstream tool name: JSON pointers to the path,
   * paths, URL and command in its arguments, so the guardrail floor and the
   * path, domain and command rules judge them as they judge a built-in's.
   * Replaces, tool by tool, what toolgate ships for the reference servers it
   * recognises (server-filesystem, mcp-server-fetch, mcp-server-git).
   */
  readonly targets?: Readonly<Record<string, McpArgumentTargets>>;
  /** Per upstream tool name: whether it is governed, and whether it writes the paths its targets name. */
  readonly tools?: Readonly<Record<string, McpToolOverride>>;
  /** The handshake and the first tool listing must finish within this, or the server is down (and retried). Default 30 s. */
  readonly connectTimeoutMs?: number;
  /** Per-call timeout, reset by every progress notification. Default 60 s. */
  readonly timeoutMs?: number;
  /** Upper bound of a call, progress or not. Default: none. */
  readonly maxTotalTimeoutMs?: number;
  /** Remove hidden and bidirectional characters from descriptions and results (they are always detected and reported). Default true. */
  readonly stripHiddenCharacters?: boolean;
}

/** An upstream call's timeout (`timeoutMs`) when its server sets none. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** What the configuration says about one upstream tool, over what its server and its annotations say. */
export interface McpToolOverride {
  /** `true`: governed even when trusted and read-only. `false`: not governed (refused for a tool that writes paths). */
  readonly governed?: boolean;
  /** Whether the paths its targets name are written (`write`, the default) or only read. */
  readonly access?: 'read' | 'write';
}

/** An upstream spawned as a child process speaking MCP over stdio. */
export interface McpStdioServerConfig extends McpServerBase {
  readonly transport: 'stdio';
  /** The executable, spawned without a shell. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Declared variables: the only ones added to the minimal environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /**
   * The largest message read from the upstream, in bytes. A longer one (or an
   * unterminated line that grows past it) closes the connection: its calls
   * fail, and memory stays bounded. Default 10 MiB.
   */
  readonly maxMessageBytes?: number;
  /**
   * The most bytes of the gateway's messages the upstream may leave unread
   * (on its stdin) when the gateway has another one for it. Past it the
   * connection is closed: its calls fail, and it is down and retried as if
   * it had exited. Past 1 MiB (or a quarter of this bound) unread, the
   * gateway reads nothing more from it until it catches up. Default 64 MiB.
   */
  readonly maxUnreadBytes?: number;
}

/** An upstream reached over Streamable HTTP. */
export interface McpHttpServerConfig extends McpServerBase {
  readonly transport: 'http';
  readonly url: string;
  /** Extra request headers (for example an authorization header). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * A loopback server (127.0.0.1, ::1, localhost) reached with the plain
   * platform fetch. Any other server goes through `fetch`, the egress guard.
   */
  readonly local?: boolean;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** A fetch function: the Node host's SSRF-safe egress, or a test double. */
export type McpFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

export interface ConnectMcpServersOptions {
  readonly servers: readonly McpServerConfig[];
  /** Where approved definition digests live. Default: in memory (pins last for the process). */
  readonly pins?: McpPinStore;
  /**
   * `first-use` (default): a definition seen for the first time is pinned as
   * approved — configuring the server is the approval. `approve`: every new
   * definition is withheld until `approvePin`.
   */
  readonly pinning?: 'first-use' | 'approve';
  /** The egress guard for HTTP upstreams not marked `local`. Absent ⇒ such servers are refused. */
  readonly fetch?: McpFetch;
  /** Client name announced to upstreams. */
  readonly clientName?: string;
  /** Receives every connection event, including those raised while connecting. */
  readonly onEvent?: <TName extends McpConnectionEventName>(event: TName, payload: McpConnectionEventMap[TName]) => void;
  /** Where a stdio upstream's stderr goes. Default `ignore`. */
  readonly stderr?: 'ignore' | 'inherit';
}

/** Why a definition is not offered. */
export type WithheldReason = 'changed' | 'unapproved';

export interface WithheldDefinition {
  readonly server: string;
  /** The upstream's own tool name. */
  readonly tool: string;
  /** The toolgate name it would have. */
  readonly name: string;
  readonly reason: WithheldReason;
  /** The digest now offered by the upstream. */
  readonly digest: string;
  /** The digest approved before, when there is one. */
  readonly pinnedDigest: string | undefined;
  /** What the upstream offers now, for review (untrusted text, hidden characters removed). */
  readonly offered: ReviewedDefinition;
  /** What was approved before, when the pin kept it (pins stored before definitions were kept did not). */
  readonly approved?: ReviewedDefinition;
}

/** The text of an upstream definition a person reviews (untrusted, hidden characters removed). */
export interface ReviewedDefinition {
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  /**
   * The hints the server gives about its tool (`readOnlyHint`, `destructiveHint`, …): with `trust: "annotations"`
   * they decide whether a call asks anyone, so a person approving a definition sees them as they see its text.
   */
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/**
 * Where an upstream server stands. `up`: connected, its tools offered.
 * `down`: it did not start, timed out in the handshake or stopped; it is
 * tried again at `nextRetryAt` (1 s after the first failure, doubling to a
 * minute). `retrying`: that attempt is running now.
 */
export interface McpServerStatus {
  readonly server: string;
  readonly state: 'up' | 'down' | 'retrying';
  /** When it entered this state (epoch ms). */
  readonly since: number;
  /** Failed attempts in a row; 0 once it is up. */
  readonly failures: number;
  /** The last failure, one line, secrets masked. */
  readonly error?: string;
  /** The tail of its stderr at the last failure, secrets masked. */
  readonly stderr?: string;
  /** When it is tried again (epoch ms), while down. */
  readonly nextRetryAt?: number;
  /** The tools it offers now. */
  readonly tools: number;
}

/** Events a connection raises. */
export interface McpConnectionEventMap {
  /** Hidden, bidirectional or control characters were found in upstream text. */
  'hidden-characters-detected': {
    readonly server: string;
    readonly tool: string;
    readonly where: 'description' | 'schema' | 'result' | 'progress';
    readonly count: number;
    /** Code points found, as `U+202E` strings, de-duplicated. */
    readonly codePoints: readonly string[];
    readonly stripped: boolean;
  };
  'definition-withheld': WithheldDefinition;
  'definition-pinned': { readonly server: string; readonly tool: string; readonly name: string; readonly digest: string };
  /** A tool could not become a definition (bad schema, bounded profile, name). */
  'tool-skipped': { readonly server: string; readonly tool: string; readonly error: ReturnType<ToolgateError['toJSON']> };
  /** The offered tool set changed: `added` and `removed` are toolgate names. */
  'tools-changed': { readonly added: readonly string[]; readonly removed: readonly string[] };
  /** A server did not start, timed out or stopped: its tools are withdrawn until a retry brings it up. */
  'server-down': McpServerStatus;
  /** A server is up (at connect, or after a retry): its tools are offered. */
  'server-up': McpServerStatus;
  /** An upstream failed to refresh its tool list; the previous list stays. */
  'refresh-failed': { readonly server: string; readonly error: ReturnType<ToolgateError['toJSON']> };
}

export type McpConnectionEventName = keyof McpConnectionEventMap;

/** A tool set change: apply it to a registry with `registry.with(added, { remove })`. */
export interface McpToolsChange {
  readonly tools: readonly AnyToolDefinition[];
  /** Every name this connection owned before the change (they are replaced). */
  readonly remove: readonly string[];
}

export interface McpConnection {
  /** The offered definitions: discovered, pinned and not withheld. */
  readonly tools: readonly AnyToolDefinition[];
  /** The host capability (`host.mcp`) every upstream call goes through, `mcp_call` included. */
  readonly capability: McpCapability;
  /**
   * Put it in the registry's `hooks.guards`: `mcp_call` to a tool with
   * argument targets is refused before it reaches an approver (the policy
   * judges those targets only for the tool's own name). The capability
   * refuses such a call too, but only after any approval.
   */
  readonly mcpCallGuard: ToolGuard;
  /** Called after each change of the offered set, with what to apply. */
  onChange(listener: (change: McpToolsChange) => void): () => void;
  on<TName extends McpConnectionEventName>(event: TName, listener: (event: McpConnectionEventMap[TName]) => void): () => void;
  /** A new registry snapshot with this connection's current tools in place of its old ones. */
  applyTo(registry: ToolRegistry): ToolRegistry;
  /** A live view: the registry kept current with this connection's changes, for `serveMcp`. */
  live(registry: ToolRegistry): LiveRegistry;
  listWithheld(): readonly WithheldDefinition[];
  /** Every configured server's status, in configuration order. */
  servers(): readonly McpServerStatus[];
  /**
   * Approve the definition now offered under `name`: pin its digest and offer
   * it. Give `digest` (from `listWithheld`) when a person reviewed a definition:
   * if the upstream now offers anything else, nothing is pinned and the call
   * fails, so an approval never covers text nobody saw.
   */
  approvePin(name: string, options?: { readonly by?: string; readonly digest?: string }): Promise<void>;
  /** Why a name is refused, when it is an upstream tool that is withheld. */
  withheldError(name: string): ToolgateError | undefined;
  /** Re-read every upstream's tool list now, not after the gap a server's announced changes wait out. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}

/** A registry that changes over time (upstream tools come and go). */
export interface LiveRegistry {
  current(): ToolRegistry;
  subscribe(listener: (registry: ToolRegistry) => void): () => void;
  /** An explanation for a name that is not offered, when there is one (for example a withheld definition). */
  explainMissing?(name: string): ToolgateError | undefined;
}
