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
      if (relative !== '' && !relative.startsWith('..') && matchGlob(relative)) return 'protected_path';
      return undefined;
    },
  });
}

/**
 * Candidates are real paths, so entries are compared by theirs. An entry may
 * not exist yet (a spill dir created lazily, a journal's `-wal`): then its
 * directory's real path stands in, so a symlinked workspace still matches.
 */
function realOrSelf(candidate: string): string {
  for (const [existing, rest] of [[candidate, ''], [path.dirname(candidate), path.basename(candidate)]] as const) {
    try {
      return path.join(realpathSync(existing), rest);
    } catch {
      // Not there yet: try its directory.
    }
  }
  return candidate;
}
