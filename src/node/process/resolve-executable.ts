import { realpathSync } from 'node:fs';
import path from 'node:path';
import { hostDenial } from '../errors/host-denial.js';
import { isInside } from '../fs/fs-jail.js';
import { findProgram } from './find-program.js';

/**
 * Resolve a command to an absolute executable on the fixed system PATH.
 * A bare name is looked up there; an absolute path is accepted only when it
 * names a file directly in one of those directories; anything relative
 * (`./git`, `bin/tool`) or inside the workspace is refused, by its spelling
 * and by the file it really is.
 */
export function resolveExecutable(command: string, directories: readonly string[], workspace: string, tool: string | undefined): string {
  if (path.isAbsolute(command) && !command.includes('\0')) {
    const normalized = path.normalize(command);
    const directory = path.dirname(normalized);
    if (directories.includes(directory) && !isInside(workspace, normalized)) {
      const found = findProgram(path.basename(normalized), [directory]);
      if (found !== undefined && !leadsIntoWorkspace(found, workspace)) return found;
    }
    throw hostDenial(tool, 'executable_not_found');
  }
  const found = findProgram(command, directories);
  if (found === undefined || leadsIntoWorkspace(found, workspace)) throw hostDenial(tool, 'executable_not_found');
  return found;
}

/**
 * Whether a program found on the PATH is, after every link, a file of the
 * workspace: a project's own command installed as a link (`npm link`, `ln -s
 * ~/project/bin/tool /usr/local/bin/tool`) ran the workspace's file, which a
 * model rewrites with an ordinary edit, under the name a rule allows. One
 * that cannot be read back (gone since it was found) is refused too.
 */
function leadsIntoWorkspace(found: string, workspace: string): boolean {
  try {
    return isInside(workspace, realpathSync.native(found));
  } catch {
    return true;
  }
}
