import { readdirSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FsJail } from '../fs/fs-jail.js';
import { DEFAULT_MASK_WALK_LIMIT, masksWhole, type MaskWalkLimit } from './find-protected-files.js';

/**
 * The protected entries of the workspace that are links, and the links in
 * its protected folders, found without following any link: what the file
 * tools learn the linked places from when the sandbox's walk could not see
 * the whole workspace. That walk follows each link that leads out (to mask
 * what it leads to), so one link a repository ships (`vendor` a link to
 * `/`) put it past its bound, and the file tools judged every path by its
 * name alone: `read_file config/dev.secrets` read what the user's `.env`
 * links to. Undefined when the workspace itself, within the same bound, is
 * too large to read.
 */
export function findProtectedLinks(jail: FsJail, isReadable: (absolute: string) => boolean, limit: MaskWalkLimit = {}): string[] | undefined {
  const maxEntries = limit.entries ?? DEFAULT_MASK_WALK_LIMIT.entries;
  const deadline = performance.now() + (limit.milliseconds ?? DEFAULT_MASK_WALK_LIMIT.milliseconds);
  const links: string[] = [];
  const folders: { readonly folder: string; readonly masked: boolean }[] = [{ folder: jail.workspace, masked: false }];
  let entries = 0;
  for (let next = folders.pop(); next !== undefined; next = folders.pop()) {
    if (performance.now() >= deadline) return undefined;
    let dirents;
    try {
      dirents = readdirSync(next.folder, { withFileTypes: true });
    } catch {
      continue;
    }
    entries += dirents.length;
    if (entries > maxEntries) return undefined;
    for (const entry of dirents) {
      const absolute = path.join(next.folder, entry.name);
      if (entry.name === '.git') continue;
      const masked = next.masked || masksWhole(jail, isReadable, absolute, entry);
      if (entry.isSymbolicLink()) {
        if (masked) links.push(absolute);
      } else if (entry.isDirectory()) folders.push({ folder: absolute, masked });
    }
  }
  return links;
}
