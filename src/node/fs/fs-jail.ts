import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigurationError } from '../../core/internal.js';
import { createProtectedTextMatcher, protectedLinkProbes, withoutRoot } from '../../core/policy/protected-paths.js';
import type { FsScope } from '../node-host-types.js';

/** The host-captured, immutable view of what the filesystem capability may touch. */
export interface FsJail {
  /** Real path of the workspace. */
  readonly workspace: string;
  /** Real path everything must stay under: the workspace, or `/` in the `full` tier. */
  readonly root: string;
  readonly scope: FsScope;
  /**
   * What an absolute path is, in one pass: off limits whatever the tier and
   * whatever an approval says (`secret_store`: the host's own stores;
   * `protected_path`: the embedder's private paths), `protected` (the default
   * protected list — repository internals, environment and key files,
   * toolgate's own state — and `protectedPaths`: reached only with an
   * approval that named its real path), or `open`.
   */
  readonly classify: (absolute: string) => PathClass;
  /** Whether `classify` says anything but `open`. */
  readonly isProtected: (absolute: string) => boolean;
  /** How a path is shown and compared: workspace-relative with `/` (`.` for the root) when inside, else absolute. */
  readonly display: (absolute: string) => string;
  /**
   * Whether `absolute` is named as a folder the protected list names files
   * below there (`protectedLinkProbes`: `.claude`, where
   * `.claude/settings.json` is protected; `gcloud` only inside `.config`).
   * A link of such a name leads a protected spelling into what it points
   * to, so it is judged as a protected entry; a folder of such a name at
   * the workspace's top is where an agent or MCP client reads what it
   * starts and runs, which the check after a command that swamped the walk
   * looks through (`protectedMovedAside`).
   */
  readonly namesProtectedBelow: (absolute: string) => boolean;
}

export type PathClass = 'secret_store' | 'protected_path' | 'protected' | 'open';

export interface CreateFsJailOptions {
  readonly workspace: string;
  readonly scope: FsScope;
  readonly protectedPaths: readonly string[];
  /** Literal paths (absolute, or relative to the workspace) the embedder keeps to itself: refused as `protected_path` even when approved. */
  readonly privatePaths?: readonly string[];
  /** Paths the host keeps to itself: the secret store, the spill and media directories. */
  readonly hostPaths: readonly string[];
  /**
   * Absolute paths refused as `protected_path` even when approved, by
   * classification alone: unlike the others, never masked in the sandbox,
   * which mounts its own (`/proc`, whose entries a process there reads only
   * of its own PID namespace).
   */
  readonly unreachablePaths?: readonly string[];
  /** Whether an absolute real path is a credential of the system or of a home (`credentialPaths`): `protected`. */
  readonly isCredential?: (absolute: string) => boolean;
  /** Whether an absolute real path is where a protected name of the workspace leads (`LinkedProtection`): `protected`. */
  readonly isLinkedProtected?: (absolute: string) => boolean;
}

/**
 * Whether a relative path (from `path.relative`, either separator) leaves
 * its base: `..` itself, a first segment of `..`, or an absolute path (another
 * drive). Not any name that merely starts with two dots: `..data` is a file
 * or folder like any other (Kubernetes secret volumes use it).
 */
export function climbsOut(relative: string): boolean {
  return relative === '..' || relative.startsWith('../') || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
}

export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  // The root, then a separator (its own last character, or the candidate's next): no string is built on every access.
  return candidate.startsWith(root) && (root.endsWith(path.sep) || candidate[root.length] === path.sep);
}

/** A segment `path.resolve` would fold or drop: empty, `.` or `..`, or a separator at either end. */
const FOLDED_SEGMENT = /(?:^|\/)\.{0,2}(?:\/|$)/;

/**
 * Whether a requested path can reach the kernel as it was judged: not
 * empty, no NUL, and no lone surrogate (the file a write would create is
 * named with U+FFFD, not the name that was resolved, approved and verified).
 */
export function isUsablePath(requested: string): boolean {
  // Half of a UTF-16 pair alone has no UTF-8 form: Node hands the kernel U+FFFD in its place.
  return requested.length > 0 && !requested.includes('\0') && requested.isWellFormed();
}

/**
 * `path.resolve(workspace, requested)`, paid for only when it has work to do:
 * a relative spelling of plain names (the common case, resolved on every
 * governed fs call) is the workspace, a separator and the spelling as is.
 */
export function resolveInWorkspace(workspace: string, requested: string): string {
  if (path.sep !== '/' || FOLDED_SEGMENT.test(requested)) return path.resolve(workspace, requested);
  return workspace.endsWith('/') ? workspace + requested : `${workspace}/${requested}`;
}

/** Build the jail once, at host creation: the workspace must exist, protected globs compile up front. */
export function createFsJail(options: CreateFsJailOptions): FsJail {
  if (!path.isAbsolute(options.workspace)) throw new ConfigurationError('workspace', 'must be an absolute path');
  let workspace: string;
  try {
    workspace = realpathSync.native(options.workspace);
  } catch (error) {
    throw new ConfigurationError('workspace', `must be an existing directory (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  // Entries are compared by their real paths, case-folded: on a filesystem that folds case `.Toolgate/` is `.toolgate/`, so fail closed.
  // Each as itself and as a folder prefix, with what it makes of a path, in one list built once: classification runs on every access.
  const entries: FoldedEntry[] = [];
  // An entry that is a link holds its own name too, not only the place it leads to: a command that put another file
  // at the name (an imported policy file linked to the team's) would change what the name reads as at the next start.
  const add = (list: readonly string[], verdict: Exclude<PathClass, 'open'>): void => {
    for (const entry of list) {
      const spelled = path.resolve(workspace, entry);
      const real = realOrSelf(spelled);
      for (const place of real === spelled ? [real] : [real, spelled]) {
        const folded = place.toLowerCase();
        entries.push({ folded, folder: folded.endsWith(path.sep) ? folded : folded + path.sep, verdict });
      }
    }
  };
  // In precedence order, host stores first: a path that is both is refused as the store it is.
  add(options.hostPaths, 'secret_store');
  add(options.privatePaths ?? [], 'protected_path');
  add(options.unreachablePaths ?? [], 'protected_path');
  add(options.protectedPaths.filter((entry) => path.isAbsolute(entry)), 'protected');
  // The engine's own matcher: its defaults plus the relative entries, case-insensitive, gitignore-style.
  const relativeEntries = options.protectedPaths.filter((entry) => !path.isAbsolute(entry));
  const matches = createProtectedTextMatcher(relativeEntries);
  const linkProbes = protectedLinkProbes(relativeEntries);
  const prefix = workspace.endsWith(path.sep) ? workspace : workspace + path.sep;
  const display = (candidate: string): string => {
    if (candidate === workspace) return '.';
    if (!candidate.startsWith(prefix)) return candidate;
    const relative = candidate.slice(prefix.length);
    return path.sep === '/' ? relative : relative.split(path.sep).join('/');
  };
  const classify = (candidate: string): PathClass => {
    const folded = candidate.toLowerCase();
    // In precedence order: the first entry holding the path decides.
    for (const entry of entries) if (folded === entry.folded || folded.startsWith(entry.folder)) return entry.verdict;
    if (options.isCredential?.(candidate) === true) return 'protected';
    // Inside the workspace the matcher sees the workspace-relative path (where the workspace itself lives is the user's choice); outside, the absolute one.
    if (matches(withoutRoot(display(candidate)))) return 'protected';
    return options.isLinkedProtected?.(candidate) === true ? 'protected' : 'open';
  };
  return Object.freeze({
    workspace,
    root: options.scope === 'full' ? path.parse(workspace).root : workspace,
    scope: options.scope,
    classify,
    isProtected: (candidate: string) => classify(candidate) !== 'open',
    display,
    namesProtectedBelow: (absolute: string) => (linkProbes.get(path.basename(absolute).toLowerCase()) ?? []).some((below) => classify(path.join(absolute, below)) !== 'open'),
  });
}

interface FoldedEntry {
  readonly folded: string;
  readonly folder: string;
  readonly verdict: Exclude<PathClass, 'open'>;
}

/**
 * Candidates are real paths, so entries are compared by theirs. An entry may
 * not exist yet (a spill dir created lazily, a journal's `-wal`, a secrets
 * folder made later): then the real path of its deepest existing ancestor,
 * with the missing names after it, stands in, so an entry spelled through a
 * symlink (a symlinked checkout, macOS `/tmp`) still matches.
 */
export function realOrSelf(candidate: string): string {
  const missing: string[] = [];
  for (let existing = candidate; ; existing = path.dirname(existing)) {
    try {
      return path.join(realpathSync.native(existing), ...missing);
    } catch {
      // Not there yet: try its parent.
    }
    if (path.dirname(existing) === existing) return candidate;
    missing.unshift(path.basename(existing));
  }
}
