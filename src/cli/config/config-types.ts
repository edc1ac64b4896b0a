import type { McpArgumentTargets, McpToolOverride } from '../../mcp/index.js';

/** The configuration file, as written (see schema/toolgate.config.schema.json). */
export interface ToolgateConfigFile {
  readonly workspace?: string;
  readonly scope?: 'read-only' | 'workspace-write' | 'full';
  readonly mode?: 'ask' | 'plan' | 'accept-edits' | 'auto';
  readonly agent?: string;
  readonly tools?: { readonly enable?: readonly string[]; readonly disable?: readonly string[] };
  readonly policy?: {
    readonly allow?: readonly string[];
    readonly ask?: readonly string[];
    readonly deny?: readonly string[];
    readonly rules?: readonly unknown[];
    readonly allowedCommands?: readonly (string | readonly string[])[];
    readonly allowedCommandGlobs?: readonly string[];
    readonly allowedDomains?: readonly string[];
    readonly protectedPaths?: readonly string[];
    readonly readableProtectedPaths?: readonly string[];
    readonly approveAtRisk?: 'low' | 'medium' | 'high' | 'critical';
    /**
     * `sha256`: the digest of the content whose allow rules the operator trusts; without it, or for other content, only deny and ask rules load.
     * `scope`: whether the file is the user's own or a project's; without it, where the file really is decides (`policyImportScope`).
     */
    readonly imports?: readonly { readonly from: 'claude' | 'gemini'; readonly path: string; readonly sha256?: string; readonly scope?: 'user' | 'project' }[];
  };
  readonly servers?: Readonly<Record<string, McpServerConfig>>;
  readonly limits?: {
    readonly maxBytes?: number;
    readonly maxLines?: number;
    readonly maxInputBytes?: number;
    /** The ceiling of an upstream's structured value, as JSON. */
    readonly maxOutputBytes?: number;
    /** The most bytes of media one result sends its MCP client as content blocks. */
    readonly maxMediaBytes?: number;
    /** What the gateway keeps in its spill folder, each store its own: spilled results, and media; past it the oldest go first. */
    readonly maxSpillBytes?: number;
    readonly maxMediaStoreBytes?: number;
    /** How many workspace entries, and how many milliseconds, the sandbox may spend finding the protected files to mask before each command. */
    readonly maskWalkEntries?: number;
    readonly maskWalkMilliseconds?: number;
    /** Tool calls that run at once, all clients together, and how many may wait for a place (`RegistryLimits`). */
    readonly maxConcurrentCalls?: number;
    readonly maxQueuedCalls?: number;
    /** Over stdio: the most of the gateway's output its MCP client may leave unread before the session is closed. */
    readonly maxUnreadBytes?: number;
  };
  readonly journal?: { readonly path?: string; readonly retentionDays?: number; readonly sign?: boolean; readonly signEveryMs?: number; readonly maxValueBytes?: number };
  readonly console?: { readonly enabled?: boolean; readonly port?: number };
  /** The MCP clients asked to approve through elicitation, by their declared name (`"*"`: all). Default: none. */
  readonly elicitation?: { readonly trustedClients?: readonly string[] };
  /** How long a pending approval waits for a person before it expires as a rejection. Default 600 s. */
  readonly approvals?: { readonly timeoutSeconds?: number };
}

export interface McpServerConfig {
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly url?: string;
  readonly local?: boolean;
  /** `annotations`: the server's annotations are facts (a read-only, non-destructive tool is not governed). Default `none`. */
  readonly trust?: 'none' | 'annotations';
  /** The older spelling of `trust`: `true` is `annotations`. */
  readonly trusted?: boolean;
  readonly bounded?: boolean;
  /** The handshake's bound, a call's timeout (restarted by progress) and its bound whatever the progress, in milliseconds. */
  readonly connectTimeoutMs?: number;
  readonly timeoutMs?: number;
  readonly maxTotalTimeoutMs?: number;
  /** A server started with `command`: the largest message read from it, and the most of the gateway's messages it may leave unread. */
  readonly maxMessageBytes?: number;
  readonly maxUnreadBytes?: number;
  /** Per upstream tool name: governed or not, and whether the paths its targets name are written. */
  readonly tools?: Readonly<Record<string, McpToolOverride>>;
  /** Per upstream tool name: JSON pointers to its path, paths, URL and command arguments. */
  readonly targets?: Readonly<Record<string, McpArgumentTargets>>;
}

/** The configuration with every default applied and every path absolute. */
export interface ResolvedConfig {
  /** The file it came from, or undefined for the embedded default. */
  readonly file: string | undefined;
  readonly workspace: string;
  readonly scope: NonNullable<ToolgateConfigFile['scope']>;
  readonly mode: NonNullable<ToolgateConfigFile['mode']>;
  readonly agent: string;
  readonly tools: NonNullable<ToolgateConfigFile['tools']>;
  readonly policy: NonNullable<ToolgateConfigFile['policy']>;
  readonly servers: Readonly<Record<string, McpServerConfig>>;
  readonly limits: NonNullable<ToolgateConfigFile['limits']>;
  readonly journal: { readonly path: string; readonly retentionDays: number | undefined; readonly sign: boolean; readonly signEveryMs: number | undefined; readonly maxValueBytes: number | undefined };
  readonly console: { readonly enabled: boolean; readonly port: number };
  readonly elicitation: { readonly trustedClients: readonly string[] };
  readonly approvals: { readonly timeoutSeconds: number };
}
