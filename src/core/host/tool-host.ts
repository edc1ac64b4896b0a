/**
 * The ToolHost seam: the engine's only path to a side effect. The engine owns
 * policy and dispatch; a host (the Node host in `toolgate/node`, a fake in
 * `toolgate/testing`, a remote worker) performs the I/O. Every capability is
 * optional: a tool whose capability is absent fails with a typed
 * `ToolUnavailableError`, never a crash.
 */

import type { ObjectStoreContent, ResolvedCommand, ResolvedPath, WorkspaceMembers } from '../action/resolved-action.js';
import type { Sha256Text } from '../digest/sha256.js';

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
  /**
   * The target as it was resolved before policy and approval. The host
   * re-resolves at execution and refuses (`target_changed`) when the real
   * path, its existence or its identity differ: what runs is what was judged.
   */
  readonly expected?: ResolvedPath;
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
  /** The command as resolved before policy and approval: a different executable or working directory at spawn is refused (`target_changed`). */
  readonly expected?: ResolvedCommand;
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
  /**
   * Submodule entries (gitlinks) the command added to the workspace's index
   * or to a submodule's, each a path from the workspace, which the host took
   * out again: the user's git would run the repository
   * each names, with its own configuration and hooks.
   */
  readonly removedGitlinks?: readonly string[];
  /**
   * Nested repositories the command left holding configuration or hooks
   * they did not hold before, each with its `.git` moved aside by the host:
   * the user's git would run what they hold on entering one as a submodule.
   */
  readonly movedRepositories?: readonly MovedRepository[];
  /**
   * Protected entries the command made where there was none when it
   * started (a `toolgate.config.json`, a `.claude/settings.local.json`, an
   * `.env`, anything the protected paths name), each moved aside by the
   * host: no rule, mode or remembered approval may approve a write to a
   * protected path, and a command's write is no exception.
   */
  readonly movedProtectedPaths?: readonly MovedProtectedPath[];
}

/** A protected entry a command made, moved aside after it (`ProcessResult.movedProtectedPaths`): paths from the workspace. */
export interface MovedProtectedPath {
  readonly from: string;
  readonly to: string;
}

/** A repository's `.git` moved aside after a command (`ProcessResult.movedRepositories`): paths from the workspace. */
export interface MovedRepository {
  readonly from: string;
  readonly to: string;
  /** What it holds that it did not before the command (`config: core.fsmonitor`, `hooks/post-checkout`), never a value. */
  readonly because: readonly string[];
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
  /**
   * Refuse (`address_not_public`) a URL that another program will fetch when
   * its host is, or resolves here to, a non-public address, and refuse
   * (`TOOL_UNAVAILABLE`) one whose name does not resolve here: the program
   * resolves it again on its own, where it may lead anywhere.
   * Optional: an upstream tool with a URL target is refused on a host without it.
   */
  checkDestination?(url: string, tool: string, signal?: AbortSignal): Promise<void>;
}

export interface OsCapability {
  readClipboard(signal?: AbortSignal): Promise<string>;
  notify(title: string, body: string, signal?: AbortSignal): Promise<void>;
}

export interface McpCallInput {
  readonly server: string;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * The call comes from the upstream tool's own definition, whose argument
   * targets (paths, URL, command) the policy has judged. A call without it
   * (`mcp_call`) to a tool that has targets is refused: only the tool's own
   * definition knows where they are in its arguments.
   */
  readonly targetsJudged?: boolean;
  /**
   * The call may write files of the workspace beyond the paths its arguments
   * name: a git server's checkout, reset or commit writes whatever the branch
   * holds. A host that sandboxes commands keeps the work tree's code and its
   * protected files across such a call, as its sandbox keeps them from a
   * command; a call that writes only what it names was judged by it.
   */
  readonly writesWorkTree?: boolean;
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

/** What the engine asks a host to resolve before policy: the call's paths and its program. */
export interface ResolveTargetRequest {
  /** The calling tool, so a refusal names it. */
  readonly tool: string;
  readonly access: 'read' | 'write';
  /** Paths as the call gave them, the command's working directory included. */
  readonly paths: readonly string[];
  /** A command's program (argv[0]): the host says which executable it would run. */
  readonly program?: string;
  /** A command's argument paths, joined to its working directory as spelled: the host says where each really leads. */
  readonly arguments?: readonly string[];
  /** For a git command that can print objects, the folder it finds its repository from, spelled as `arguments`: the host says what its object store holds. */
  readonly repository?: string;
  /** The object ids, whole or abbreviated, the git command's arguments may name (`objectIdsOf`): the host says whether one may be unreachable. */
  readonly objectIds?: readonly string[];
  /**
   * The indexes among `arguments` of folders whose listing is part of what
   * was judged (the folders a workspace's globs read, `WorkspaceMembers.listed`):
   * each carries a content stamp as a file does, so a name added or removed
   * there changes it.
   */
  readonly listings?: readonly number[];
  /**
   * Files naming a workspace's members (a `package.json`'s `workspaces`, a
   * `pnpm-workspace.yaml`'s `packages`), spelled as `arguments`: the host
   * says which member folders each names (`ResolvedTarget.workspaces`).
   */
  readonly workspaces?: readonly string[];
}

export interface ResolvedTarget {
  /** One entry per requested path, in order. */
  readonly files: readonly ResolvedPath[];
  /** The absolute executable for `program`, when the host found one. */
  readonly executable?: string;
  /** One entry per requested argument path, in order; a host that leaves it out leaves arguments to their spelling. */
  readonly arguments?: readonly ResolvedPath[];
  /** What the object store of `repository` holds; left out, the policy judges it as holding a protected file. */
  readonly objectStore?: ObjectStoreContent;
  /** One entry per file of `workspaces`, in order; left out, the members are not bound, and a card says so. */
  readonly workspaces?: readonly WorkspaceMembers[];
}

export interface ToolHost {
  /**
   * Resolve a call's targets on the platform, before policy: real paths after
   * every symlink, protected areas, new files, hard links, the executable.
   * Optional: without it the engine resolves lexically. It may reject with a
   * typed error (an unusable path), which fails the call closed.
   */
  readonly resolve?: (request: ResolveTargetRequest, signal?: AbortSignal) => ResolvedTarget | Promise<ResolvedTarget>;
  /**
   * A synchronous SHA-256 of UTF-8 text, as lowercase hex, for the input and
   * action digests (the Node host supplies `node:crypto`'s). Optional: without
   * it the engine falls back to Web Crypto, which is asynchronous.
   */
  readonly sha256?: Sha256Text;
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
