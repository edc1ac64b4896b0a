/**
 * The resolved action: one canonical account of what a call will do, built
 * once before policy. Policy rules, the guardrail floor, the approval card,
 * remembered approvals, the action digest and the receipt all read this one
 * value, and the host performs exactly it. The spelling a model chose (`a/../b`,
 * a symlink, a string command) never reaches a decision on its own.
 */

/** A flag of one filesystem target, as the approver sees it. */
export type ResolvedPathFlag = 'protected' | 'link' | 'outside' | 'new' | 'hardlink';

/** One filesystem target. */
export interface ResolvedPath {
  /** The path exactly as the call gave it. */
  readonly requested: string;
  /** Normalised without touching the disk: workspace-relative (`.` is the root) when inside it, else absolute. */
  readonly path: string;
  /**
   * Where it really is, after every symlink in every component: workspace-relative
   * when inside the workspace, else absolute. Equal to `path` when nothing resolved
   * it on a disk (an engine without a resolving host).
   */
  readonly real: string;
  /** A protected area: repository internals, environment and key files, toolgate's own state, `protectedPaths`. */
  readonly protected: boolean;
  /** Some component of the path is a symlink. */
  readonly linkTraversal: boolean;
  /** The real path is outside the workspace. */
  readonly outside: boolean;
  /** The target does not exist yet. */
  readonly created: boolean;
  /** An existing file with more than one hard link. */
  readonly hardLinked: boolean;
  /**
   * Host-private: what the host compares at execution (device and inode of
   * the target and its parent, kind). Never shown, never digested.
   */
  readonly identity?: string;
  /**
   * Host-private, for a command's argument or a write's target that is an
   * existing regular file: which file it is (device and inode), its size and
   * its modification and change times. Bytes written into the file change it
   * (the change time cannot be set back), and another file with the same size
   * and times put in its place (a twin renamed in with its folder) is another
   * file, so an approval remembered for a command, the command's spawn, and
   * an approved write or edit (whose card drew its diff against the file) are
   * bound to the file as it was judged, not only to its name. Never shown,
   * never digested.
   */
  readonly contentStamp?: string;
}

/** A process: the exact argv (no shell ever reads it), the program the host will run, and where. */
export interface ResolvedCommand {
  readonly argv: readonly string[];
  /** The absolute executable the host resolved; undefined when no host resolved it. */
  readonly executable: string | undefined;
  /** The working directory (the workspace root when the call names none). */
  readonly cwd: ResolvedPath;
  /**
   * Where the paths its arguments may name really lead (each argument after
   * the program, each part after a `=` or a `:`, read against `cwd`), as the
   * host resolved them: a link or a hard link to a protected file is seen
   * here, not in the spelling. Undefined when no host resolved them.
   */
  readonly arguments?: readonly ResolvedPath[];
  /** It names more paths than a host resolves for one command: judged as naming a protected one. */
  readonly tooManyArguments?: true;
  /**
   * How deep the host found each folder a runner climbs from (`climbFolders`,
   * `realDepth`), which sets how many of `arguments` are that runner's files
   * (`runnerCode`). Undefined when no host resolved them: the climb is as spelled.
   */
  readonly runnerClimbs?: readonly number[];
  /**
   * The members the host found each workspace a runner selects members of
   * names (`RunnerCode.roots`, trimmed to what is resolved), which adds their
   * `package.json` and the folders their globs listed to `arguments`
   * (`runnerCode`). Undefined when no host said: the members are not bound.
   */
  readonly runnerMembers?: readonly WorkspaceMembers[];
  /**
   * For a git command that can print objects: what the object store of the
   * repository it works in holds, as the host found it. Undefined when no
   * host looked, which the policy reads as holding a protected file.
   */
  readonly objectStore?: ObjectStoreContent;
}

/** The members one file of a host's `workspaces` request names, each relative to that file's folder. */
export interface WorkspaceMembers {
  /** The folders its globs match, whose `package.json` a runner runs (one without a `package.json` too: one planted there is a change). */
  readonly members: readonly string[];
  /** The folders whose listing the globs were matched against: a member planted there changes the listing. */
  readonly listed: readonly string[];
  /** Not every member is listed: past the host's bound, a glob that leaves the workspace, a file it did not read. */
  readonly cut?: boolean;
}

/**
 * What a repository's object store may hold of protected files. The sandbox
 * masks a protected file of the work tree, but git reads the object store,
 * where a committed, staged or once-added `.env` stays.
 */
export interface ObjectStoreContent {
  /** A tree or the index that a ref, a reflog entry, the stash or the index reaches names a protected path. */
  readonly protectedNames: boolean;
  /** The store holds objects nothing reaches (a blob once added, then taken out): any of them may be a protected file. */
  readonly unreachable: boolean;
  /** An id the command names (`show 92dc429`) may be one of those objects: whole, or the start of one's id. */
  readonly namesUnreachable: boolean;
}

/** One query parameter of a URL, in order. */
export interface ResolvedQueryParameter {
  readonly key: string;
  readonly value: string;
}

/** An HTTP request: what leaves, spelled canonically. */
export interface ResolvedHttp {
  readonly method: string;
  /** The URL as the WHATWG parser normalises it. */
  readonly url: string;
  readonly scheme: string;
  /** Lower-case, IDNA, no trailing dot. */
  readonly host: string;
  /** The effective port (443 for https when none is given). */
  readonly port: number;
  readonly path: string;
  readonly query: readonly ResolvedQueryParameter[];
}

/** An MCP tool call: the server, the tool on it, and the complete arguments it receives. */
export interface ResolvedMcp {
  readonly server: string;
  /** Undefined for a tool that names only the server it talks to. */
  readonly tool: string | undefined;
  readonly arguments: unknown;
}

/** An OS action (clipboard, notification) and the text it carries. */
export interface ResolvedOsAction {
  readonly action: string;
  readonly text?: string;
}

/** A web search: the query that leaves and the provider it goes to. */
export interface ResolvedSearch {
  readonly query: string;
  readonly host: string | undefined;
}

export interface ResolvedAction {
  /** `host`: real paths and the executable came from the host; `lexical`: from the spelling alone. */
  readonly resolvedBy: 'host' | 'lexical';
  /** Whether the file targets are written (`write`) or only read or listed (`read`). */
  readonly access: 'read' | 'write';
  /** Every filesystem target, the working directory of a command included. */
  readonly files: readonly ResolvedPath[];
  readonly command?: ResolvedCommand;
  readonly http?: ResolvedHttp;
  readonly mcp?: ResolvedMcp;
  readonly os?: ResolvedOsAction;
  readonly search?: ResolvedSearch;
}

/** The flags of a path, in a fixed order, for display. */
export function pathFlags(path: ResolvedPath): readonly ResolvedPathFlag[] {
  const flags: ResolvedPathFlag[] = [];
  if (path.protected) flags.push('protected');
  if (path.linkTraversal) flags.push('link');
  if (path.outside) flags.push('outside');
  if (path.created) flags.push('new');
  if (path.hardLinked) flags.push('hardlink');
  return flags;
}
