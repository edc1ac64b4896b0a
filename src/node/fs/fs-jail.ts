import { realpathSync } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { ConfigurationError } from '../../core/index.js';
import type { FsScope } from '../node-host-types.js';

/** The host-captured, immutable view of what the filesystem capability may touch. */
export interface FsJail {
  /** Real path of the workspace. */
  readonly workspace: string;
  /** Real path everything must stay under: the workspace, or `/` in the `full` tier. */
  readonly root: string;
  readonly scope: FsScope;
  /** Why an absolute real path is off limits whatever the tier, or `undefined`. */
  readonly refusal: (absolute: string) => 'protected_path' | 'secret_store' | undefined;
}

export interface CreateFsJailOptions {
  readonly workspace: string;
  readonly scope: FsScope;
  readonly protectedPaths: readonly string[];
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
    workspace = realpathSync(options.workspace);
  } catch (error) {
    throw new ConfigurationError('workspace', `must be an existing directory (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  const absolute = options.protectedPaths.filter((entry) => path.isAbsolute(entry)).map((entry) => realOrSelf(path.resolve(entry)));
  const globs = options.protectedPaths.filter((entry) => !path.isAbsolute(entry)).flatMap((entry) => [entry, `${entry.replace(/\/+$/, '')}/**`]);
  const matchGlob = globs.length === 0 ? () => false : picomatch(globs, { dot: true });
  const hostPaths = options.hostPaths.map((entry) => realOrSelf(path.resolve(entry)));
  return Object.freeze({
    workspace,
    root: options.scope === 'full' ? path.parse(workspace).root : workspace,
    scope: options.scope,
    refusal(candidate: string) {
      if (hostPaths.some((entry) => isInside(entry, candidate))) return 'secret_store';
      if (absolute.some((entry) => isInside(entry, candidate))) return 'protected_path';
      const relative = path.relative(workspace, candidate).split(path.sep).join('/');
      if (relative !== '' && !climbsOut(relative) && matchGlob(relative)) return 'protected_path';
      return undefined;
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
      return path.join(realpathSync(existing), ...missing);
    } catch {
      // Not there yet: try its parent.
    }
    if (path.dirname(existing) === existing) return candidate;
    missing.unshift(path.basename(existing));
  }
}
