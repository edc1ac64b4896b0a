import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { MovedProtectedPath } from '../../core/internal.js';
import { hostUnavailable } from '../errors/host-denial.js';
import { isInside, type FsJail } from '../fs/fs-jail.js';
import type { FoundProtectedFiles } from './find-protected-files.js';
import { fromWorkspace, moveAside } from './move-aside.js';

/**
 * The protected entries a command made: each place in the workspace that
 * the walk after it classifies as protected and the walk before it did not
 * find, moved aside to `<name>-held-by-toolgate` (see `moveAside`). The
 * sandbox masks what is protected when a command starts; a path that is
 * not there yet cannot be masked without a mount point left in the real
 * workspace, so what a command makes there (`cp payload .claude/`, a
 * `git apply` whose patch adds a `toolgate.config.json` that the next
 * start would read) is taken out after it. An entry that could not be
 * moved fails the call, saying what to look at; so does a workspace the
 * command left too large to walk whole, once what is read at an agent's
 * start was moved aside (`startupEntries`).
 */
export function protectedMovedAside(jail: FsJail, before: readonly string[], after: FoundProtectedFiles | undefined, tool: string | undefined): readonly MovedProtectedPath[] {
  const workspace = jail.workspace;
  const known = new Set(before);
  const moved: MovedProtectedPath[] = [];
  const failed: string[] = [];
  for (const entry of after?.paths ?? startupEntries(workspace)) {
    // Outside the workspace: where a link leads, masked, never moved. Open by name: a hard link to one it made, or a folder
    // the walk could not list (neither is read as configuration by its name). The host's stores: it makes them itself.
    if (known.has(entry) || !isInside(workspace, entry)) continue;
    const kind = jail.classify(entry);
    if (kind === 'open' || kind === 'secret_store') continue;
    const aside = moveAside(entry, `${path.basename(entry)}-held-by-toolgate`, workspace);
    if (aside === 'failed') failed.push(fromWorkspace(workspace, entry));
    else if (aside !== 'gone') moved.push({ from: fromWorkspace(workspace, entry), to: fromWorkspace(workspace, aside.to) });
  }
  const what = 'the command ran, but toolgate could not';
  const movedText = moved.length === 0 ? '' : ` (moved aside: ${moved.map((entry) => `${entry.from} to ${entry.to}`).join(', ')})`;
  if (failed.length > 0) throw hostUnavailable(tool, 'process', `${what} move the protected files it made aside (${failed.join(', ')})${movedText}: remove them before starting an agent there`);
  if (after === undefined) throw hostUnavailable(tool, 'process', `${what} walk the whole workspace afterwards to look for protected files it made${movedText}: look for any before starting an agent there`);
  return moved;
}

/**
 * What a toolgate, Claude Code or Gemini CLI started in the workspace reads
 * first, for a workspace too large to walk whole: the entries of its top
 * folder and of its `.claude` folder.
 */
function startupEntries(workspace: string): string[] {
  const entries: string[] = [];
  for (const folder of [workspace, path.join(workspace, '.claude')]) {
    if (lstatSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    try {
      for (const name of readdirSync(folder)) entries.push(path.join(folder, name));
    } catch {
      // Unreadable: nothing of it is moved, and the call says the workspace was not checked.
    }
  }
  return entries;
}
