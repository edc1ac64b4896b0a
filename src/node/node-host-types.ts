import type { Duplex } from 'node:stream';
import type { EgressCapability, FsCapability, McpCapability, MediaStore, OsCapability, ProcessCapability, ResolvedTarget, ResolveTargetRequest, SecretsCapability, ToolHost } from '../core/internal.js';
import type { MaskWalkLimit } from './process/find-protected-files.js';
import type { NodeOutputStore } from './stores/create-output-store.js';

/** The filesystem scope tier the host enforces. `full` lifts the workspace jail (protected paths still apply). */
export type FsScope = 'read-only' | 'workspace-write' | 'full';

/** `auto`: use bwrap when it can start, else run unsandboxed and say so; `required`: fail closed; `off`: never. */
export type SandboxMode = 'auto' | 'required' | 'off';

/** One DNS answer. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a hostname to every address it has. The default uses `dns.lookup(host, { all: true })`. */
export type EgressLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** Opens the raw transport to an already-validated address. The host runs TLS over it. */
export type EgressConnect = (target: { readonly address: string; readonly port: number; readonly servername: string }) => Promise<Duplex>;

export interface EgressOptions {
  readonly lookup?: EgressLookup;
  readonly connect?: EgressConnect;
  /** Response body cap in bytes. Default 5 MiB. */
  readonly maxBytes?: number;
  /** Request body cap in bytes. Default 1 MiB. */
  readonly maxRequestBytes?: number;
  /** Whole-request deadline including redirects. Default 30 s. */
  readonly timeoutMs?: number;
  /** Hosts a redirect may lead to besides the original host (exact, lower-case). */
  readonly allowedDomains?: readonly string[];
  /** The engine's allowlist check for a redirect hop; wins over `allowedDomains`. */
  readonly allowRedirect?: (url: URL) => boolean;
  /** Extra CA certificates to trust (PEM). For tests against a loopback TLS server only. */
  readonly trustedCa?: string | readonly string[];
}

/** Where credential references resolve. A `path` marks the store's file so fs and the sandbox never expose it. */
export interface SecretStore {
  get(ref: string): string | undefined | Promise<string | undefined>;
  readonly path?: string;
}

export interface NodeHostOptions {
  /** Absolute path: the jail root and the default working directory. */
  readonly workspace: string;
  /** Default `'workspace-write'`. */
  readonly scope?: FsScope;
  /**
   * Globs relative to the workspace (gitignore-style, matched case-insensitively), or absolute paths,
   * protected in addition to the defaults (`DEFAULT_PROTECTED_PATHS`: repository internals, environment
   * and key files, toolgate's own state). A read or write whose real path, or spelling, is protected is
   * refused unless the call's approved target (`expected`) named that real path as protected.
   * Inside the OS sandbox every workspace file they match (and the defaults match) is masked at each
   * command's start, so a command cannot read it either; one without glob characters is masked even
   * outside the workspace.
   */
  readonly protectedPaths?: readonly string[];
  /**
   * Literal paths (absolute, or relative to the workspace) of the embedder's own state — a gateway's
   * journal, configuration, remembered rules — refused to every tool whatever an approval says, and
   * masked inside the OS sandbox.
   */
  readonly privatePaths?: readonly string[];
  /**
   * Protected files the policy lets be read (its `readableProtectedPaths`, gitignore-style): left
   * visible inside the OS sandbox, so a committed template such as `.env.example` is not seen
   * emptied by git. Never the host's own stores or `privatePaths`, and never a hard link to a
   * masked file.
   */
  readonly readableProtectedPaths?: readonly string[];
  /** Environment for children: names a tool may declare, and fixed values the host sets. */
  readonly env?: { readonly allow?: readonly string[]; readonly set?: Readonly<Record<string, string>> };
  /** Default `'auto'`. */
  readonly sandbox?: SandboxMode;
  /**
   * The host user's home (default `os.homedir()`): children get it as `HOME`, and its credential
   * stores (`HOME_CREDENTIAL_PATHS`: `.ssh`, `.aws`, `.netrc`, …), as those of `/root` and `/home/*`
   * and the system's own secrets (`SYSTEM_CREDENTIAL_PATHS`), are protected and masked inside the OS
   * sandbox, so a command that reads the home folder recursively reads none of them.
   */
  readonly home?: string;
  /**
   * How much of the workspace each sandboxed command may walk, before it starts, to find the protected
   * files to mask (default 200,000 entries and 2 s). Past it the command is refused as unavailable,
   * never run unmasked.
   */
  readonly maskWalkLimit?: MaskWalkLimit;
  readonly egress?: EgressOptions;
  /** A map, a record, or a store; credential references resolve through it inside the host. */
  readonly secrets?: ReadonlyMap<string, string> | Readonly<Record<string, string>> | SecretStore;
  /**
   * Root of run-scoped spills, the media store and the git diff shim. Default: a fresh directory under the OS temp dir.
   * It and its `runs/`, `media/` and `bin/` must be folders of this user's that no other user may write (a link, a
   * file, another user's folder or a world-writable one is a `ConfigurationError`): retention sweeps them.
   */
  readonly spillDir?: string;
  /** The most bytes of spilled results kept at once; past it the oldest go first (see `createOutputStore`). Default 64 MiB. */
  readonly maxSpillBytes?: number;
  /** The most bytes of media (results' images, audio, blobs) the media store keeps of its own; past it the oldest go first (see `createMediaStore`). Default 128 MiB. */
  readonly maxMediaStoreBytes?: number;
  /** Largest file read or written, in bytes. Default 10 MiB. */
  readonly maxFileBytes?: number;
  /** Directories executables resolve in. Default: the platform's fixed system PATH. Must lie outside the workspace. */
  readonly executablePath?: readonly string[];
}

/** The Node host: every capability but `mcp`, plus run-scoped cleanup. */
export interface NodeHost extends ToolHost {
  readonly workspace: string;
  readonly scope: FsScope;
  /** Real paths and their flags, and the executable, before policy; synchronous (see `createResolveTarget`). */
  readonly resolve: (request: ResolveTargetRequest, signal?: AbortSignal) => ResolvedTarget;
  /** `node:crypto`'s SHA-256 (see `nodeSha256`): digests without a Web Crypto round trip. */
  readonly sha256: (text: string) => string;
  readonly fs: Required<FsCapability>;
  readonly process: ProcessCapability;
  readonly egress: Required<EgressCapability>;
  readonly os: OsCapability;
  readonly outputStore: NodeOutputStore;
  readonly mediaStore: MediaStore;
  readonly secrets: SecretsCapability;
  /** Whether bwrap wraps children: resolved on first spawn. */
  sandboxStatus(): Promise<'bwrap' | 'none'>;
  /**
   * Wrap an MCP capability so that each upstream call, which may write the
   * workspace outside the host's own capabilities (a filesystem server's
   * write through a link), is held to the nested repositories as a file
   * write is: a repository it left holding code it did not hold is moved
   * aside, and the call fails, saying so.
   */
  holdingRepositories(mcp: McpCapability): McpCapability;
  /** Remove the run's spilled outputs. */
  endRun(runId: string): Promise<void>;
  /** Remove every spill and the media store when the host created them itself. */
  close(): Promise<void>;
}
