import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigurationError } from '../../core/index.js';
import type { NormalizedPath } from '../../core/policy/normalize-path.js';
import { createProtectedPathMatcher } from '../../core/policy/protected-paths.js';
import type { FsScope } from '../node-host-types.js';

/** The host-captured, immutable view of what the filesystem capability may touch. */
export interface FsJail {
  /** Real path of the workspace. */
  readonly workspace: string;
  /** Real path everything must stay under: the workspace, or `/` in the `full` tier. */
  readonly root: string;
  readonly scope: FsScope;
  /**
   * Why an absolute path is off limits whatever the tier and whatever an
   * approval says (the host's own stores, the embedder's private paths), or `undefined`.
   */
  readonly refusal: (absolute: string) => 'protected_path' | 'secret_store' | undefined;
  /**
   * Whether an absolute path is in a protected area: the default protected
   * list (repository internals, environment and key files, toolgate's own
   * state), `protectedPaths`, and everything `refusal` names. Reached only
   * with an approval that named its real path.
   */
  readonly isProtected: (absolute: string) => boolean;
  /** How a path is shown and compared: workspace-relative with `/` (`.` for the root) when inside, else absolute. */
  readonly display: (absolute: string) => string;
}

export interface CreateFsJailOptions {
  readonly workspace: string;
  readonly scope: FsScope;
  readonly protectedPaths: readonly string[];
  /** Literal paths (absolute, or relative to the workspace) the embedder keeps to itself: refused as `protected_path` even when approved. */
  readonly privatePaths?: readonly string[];
  /** Paths the host keeps to itself: the secret store, the spill and media directories. */
  readonly hostPaths: readonly string[];
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
  return candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
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
  // Each as itself and as a folder prefix, built once: classification runs on every access.
  const foldAll = (entries: readonly string[]): readonly (readonly [string, string])[] =>
    entries.map((entry) => {
      const folded = realOrSelf(path.resolve(workspace, entry)).toLowerCase();
      return [folded, folded.endsWith(path.sep) ? folded : folded + path.sep] as const;
    });
  const hostPaths = foldAll(options.hostPaths);
  const privatePaths = foldAll(options.privatePaths ?? []);
  const absolute = foldAll(options.protectedPaths.filter((entry) => path.isAbsolute(entry)));
  // The engine's own matcher: its defaults plus the relative entries, case-insensitive, gitignore-style.
  const matches = createProtectedPathMatcher(options.protectedPaths.filter((entry) => !path.isAbsolute(entry)));
  const inside = (entries: readonly (readonly [string, string])[], folded: string): boolean => entries.some(([entry, folder]) => folded === entry || folded.startsWith(folder));
  const prefix = workspace.endsWith(path.sep) ? workspace : workspace + path.sep;
  const display = (candidate: string): string => {
    if (candidate === workspace) return '.';
    if (!candidate.startsWith(prefix)) return candidate;
    const relative = candidate.slice(prefix.length);
    return path.sep === '/' ? relative : relative.split(path.sep).join('/');
  };
  const reserved = (folded: string): 'protected_path' | 'secret_store' | undefined => {
    if (inside(hostPaths, folded)) return 'secret_store';
    if (inside(privatePaths, folded)) return 'protected_path';
    return undefined;
  };
  return Object.freeze({
    workspace,
    root: options.scope === 'full' ? path.parse(workspace).root : workspace,
    scope: options.scope,
    refusal: (candidate: string) => reserved(candidate.toLowerCase()),
    display,
    isProtected(candidate: string) {
      const folded = candidate.toLowerCase();
      if (reserved(folded) !== undefined || inside(absolute, folded)) return true;
      // Inside the workspace the matcher sees the workspace-relative path (where the workspace itself lives is the user's choice); outside, the absolute one.
      const shown = display(candidate);
      const normal: NormalizedPath = { absolute: path.isAbsolute(shown), path: shown, relative: undefined, escapes: false };
      return matches(normal);
    },
  });
}

/**
 * Candidates are real paths, so entries are compared by theirs. An entry may
 * not exist yet (a spill dir created lazily, a journal's `-wal`, a secrets
 * folder made later): then the real path of its deepest existing ancestor,
 * with the missing names after it, stands in, so an entry spelled through a
 * symlink (a symlinked checkout, macOS `/tmp`) still matches.
 */
function realOrSelf(candidate: string): string {
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
