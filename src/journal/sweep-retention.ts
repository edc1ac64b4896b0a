import { lstatSync, readdirSync, realpathSync, rmSync, type Stats } from 'node:fs';
import { join, parse } from 'node:path';
import { ConfigurationError } from '../core/internal.js';

/**
 * A directory to sweep. `runs`: each direct child is one run's spill folder
 * (or file), removed whole when nothing in it is newer than the cutoff.
 * `files`: a content-addressed store; each old file is removed on its own,
 * then empty folders.
 */
export interface RetentionDirectory {
  readonly path: string;
  readonly layout: 'runs' | 'files';
}

export interface SweepRetentionOptions {
  readonly directories: readonly RetentionDirectory[];
  /** Keep anything modified within this many milliseconds. */
  readonly retentionMs: number;
  /** Default `Date.now()`. */
  readonly now?: number;
}

export interface SweepRetentionResult {
  /** Removed entries, relative to their swept directory. */
  readonly removed: readonly string[];
  readonly freedBytes: number;
}

/**
 * Retention: remove spills and media older than the retention period.
 * Symlinks are never followed (a link is removed as a link); nothing outside
 * the given directories is touched; a missing directory is skipped.
 */
export function sweepRetention(options: SweepRetentionOptions): SweepRetentionResult {
  if (!Number.isFinite(options.retentionMs) || options.retentionMs < 0) throw new ConfigurationError('retentionMs', 'must be a non-negative number');
  const cutoff = (options.now ?? Date.now()) - options.retentionMs;
  const removed: string[] = [];
  let freedBytes = 0;
  for (const directory of options.directories) {
    const root = resolveRoot(directory.path);
    if (root === undefined) continue;
    for (const name of readdirSync(root)) {
      const entry = join(root, name);
      if (directory.layout === 'runs') {
        const { newest, bytes } = measure(entry);
        if (newest >= cutoff) continue;
        rmSync(entry, { recursive: true, force: true });
        removed.push(name);
        freedBytes += bytes;
      } else {
        freedBytes += sweepFiles(entry, name, cutoff, removed);
      }
    }
  }
  return { removed, freedBytes };
}

function resolveRoot(path: string): string | undefined {
  if (typeof path !== 'string' || path.length === 0 || path.includes('\0')) throw new ConfigurationError('directories', 'must hold non-empty paths');
  let root: string;
  try {
    root = realpathSync(path);
  } catch {
    return undefined;
  }
  // Sweeping a filesystem root would be a catastrophe, never a retention policy.
  if (parse(root).root === root) throw new ConfigurationError('directories', 'must not name a filesystem root');
  if (!lstatSync(root).isDirectory()) throw new ConfigurationError('directories', 'must name directories');
  return root;
}

/** Newest modification time and total size under an entry, without following links. */
function measure(entry: string): { newest: number; bytes: number } {
  const stat: Stats = lstatSync(entry);
  if (!stat.isDirectory()) return { newest: stat.mtimeMs, bytes: stat.size };
  let newest = stat.mtimeMs;
  let bytes = 0;
  for (const name of readdirSync(entry)) {
    const child = measure(join(entry, name));
    newest = Math.max(newest, child.newest);
    bytes += child.bytes;
  }
  return { newest, bytes };
}

function sweepFiles(entry: string, relative: string, cutoff: number, removed: string[]): number {
  const stat = lstatSync(entry);
  if (!stat.isDirectory()) {
    if (stat.mtimeMs >= cutoff) return 0;
    rmSync(entry, { force: true });
    removed.push(relative);
    return stat.size;
  }
  let freed = 0;
  for (const name of readdirSync(entry)) freed += sweepFiles(join(entry, name), `${relative}/${name}`, cutoff, removed);
  if (stat.mtimeMs < cutoff && readdirSync(entry).length === 0) rmSync(entry, { recursive: true, force: true });
  return freed;
}
