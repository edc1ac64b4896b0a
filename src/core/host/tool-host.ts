/**
 * The ToolHost seam: the engine's only path to a side effect. The engine owns
 * policy and dispatch; a host (the Node host in `toolgate/node`, a fake in
 * `toolgate/testing`, a remote worker) performs the I/O. Every capability is
 * optional: a tool whose capability is absent fails with a typed
 * `ToolUnavailableError`, never a crash.
 */

/** Trusted per-call options a host may receive; never tool arguments. */
export interface ToolHostCallOptions {
  /** Register transitive work that must be owned until it settles. */
  readonly retainWork?: <T>(factory: () => Promise<T>) => Promise<T>;
  /** Receives progress of a long-running host operation (an MCP upstream call), for the caller to forward. */
  readonly onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export interface FileRead {
  /** UTF-8 text, when the file is text. */
  readonly content?: string;
  /** A media handle, when the file is binary (never inline base64). */
  readonly media?: MediaHandle;
  readonly bytes: number;
  /** True when `offset`/`limit` or a size cap cut the file. */
  readonly partial: boolean;
  readonly sha256?: string;
}

export interface FileWrite {
  readonly bytes: number;
  readonly sha256: string;
  readonly created: boolean;
}

export interface DirectoryEntry {
  /** Workspace-relative path with `/` separators. */
  readonly path: string;
  readonly kind: 'file' | 'directory' | 'symlink' | 'other';
  readonly bytes?: number;
}

export interface FileEdit {
  readonly bytes: number;
  readonly sha256: string;
  /** How many occurrences of `oldText` were replaced. */
  readonly replacements: number;
}

/** Common to every capability call: the calling tool's name, so a host denial names it. */
export interface HostCallLabel {
  readonly tool?: string;
}

export interface FsCapability {
  /** `offset` is the first line (1-based), `limit` the number of lines. */
  readFile(path: string, options?: { offset?: number; limit?: number } & HostCallLabel, signal?: AbortSignal): Promise<FileRead>;
  /** `expectedSha256`: write only if the current content still hashes to it (optimistic concurrency). */
  writeFile(path: string, content: string, options?: { expectedSha256?: string } & HostCallLabel, signal?: AbortSignal): Promise<FileWrite>;
  /** Replace exact text; exactly one occurrence unless `replaceAll`. */
  editFile?(
    path: string,
    edit: { readonly oldText: string; readonly newText: string; readonly replaceAll?: boolean },
    options?: HostCallLabel,
    signal?: AbortSignal,
  ): Promise<FileEdit>;
  listDirectory(path: string, options?: { depth?: number; includeHidden?: boolean } & HostCallLabel, signal?: AbortSignal): Promise<readonly DirectoryEntry[]>;
}

export interface SpawnOptions {
  /** Workspace-relative working directory; the host jails it. */
  readonly cwd?: string;
  readonly timeoutMs?: number;
  readonly maxOutputBytes?: number;
  readonly stdin?: string;
  readonly tool?: string;
}

export interface ProcessResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly truncated: boolean;
  /** Whether an OS sandbox wrapped the child, and which. */
  readonly sandbox?: 'bwrap' | 'none';
}

export interface ProcessCapability {
  /**
   * Spawn an already-policy-checked command with `shell: false`. The host
   * resolves the executable, builds a minimal environment and merges only
   * the declared variables it allows — never the ambient environment.
   */
  spawn(
    command: string,
    args: readonly string[],
    declaredEnv: Readonly<Record<string, string>>,
    options: SpawnOptions,
    signal?: AbortSignal,
  ): Promise<ProcessResult>;
}

export interface EgressRequest {
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** An opaque secret-store reference the host resolves inside its boundary. */
  readonly credentialRef?: string;
  /** The header the resolved credential goes in, raw; default `authorization` as `Bearer <secret>`. */
  readonly credentialHeader?: string;
  /** The calling tool's name, so a host denial names it. */
  readonly tool?: string;
}

export interface EgressResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Set when the body was binary and stored as media. */
  readonly media?: MediaHandle;
  readonly truncated: boolean;
  /** The final URL after redirects. */
  readonly url: string;
}

export interface EgressCapability {
  fetch(request: EgressRequest, signal?: AbortSignal, options?: ToolHostCallOptions): Promise<EgressResponse>;
}

export interface OsCapability {
  readClipboard(signal?: AbortSignal): Promise<string>;
  notify(title: string, body: string, signal?: AbortSignal): Promise<void>;
}

export interface McpCallInput {
  readonly server: string;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Called with progress notifications from upstream. */
  readonly onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export interface McpCapability {
  call(input: McpCallInput, signal?: AbortSignal, options?: ToolHostCallOptions): Promise<unknown>;
}

/** A handle to spilled output: what the model sees instead of the full text. */
export interface SpilledResult {
  readonly handle: string;
  readonly bytes: number;
}

export interface ToolResultLimits {
  /** Model-facing content ceiling in UTF-8 bytes. */
  readonly maxBytes: number;
  /** Model-facing content ceiling in lines. */
  readonly maxLines: number;
}

export interface ToolOutputStore {
  /** Spill an over-ceiling result to a run-scoped store. */
  spill(text: string, limits: ToolResultLimits, signal?: AbortSignal, runId?: string): Promise<SpilledResult>;
}

export interface MediaHandle {
  /** Opaque, content-addressed handle, e.g. `media:sha256:…`. */
  readonly handle: string;
  readonly mediaType: string;
  readonly bytes: number;
}

export interface MediaStore {
  put(bytes: Uint8Array, mediaType: string): Promise<MediaHandle>;
  get(handle: string): Promise<{ bytes: Uint8Array; mediaType: string } | undefined>;
}

/** Credential references, resolved only inside the host. A tool may ask whether one exists, never for its value. */
export interface SecretsCapability {
  has(ref: string): Promise<boolean>;
}

export interface ToolHost {
  readonly fs?: FsCapability;
  readonly process?: ProcessCapability;
  readonly egress?: EgressCapability;
  readonly os?: OsCapability;
  readonly mcp?: McpCapability;
  readonly outputStore?: ToolOutputStore;
  readonly mediaStore?: MediaStore;
  readonly secrets?: SecretsCapability;
}

export type ToolHostCapability = keyof ToolHost;
