import path from 'node:path';
import { hostDenial } from '../errors/host-denial.js';
import { isInside } from '../fs/fs-jail.js';
import { findProgram } from './find-program.js';

/**
 * Resolve a command to an absolute executable on the fixed system PATH.
 * A bare name is looked up there; an absolute path is accepted only when it
 * names a file directly in one of those directories; anything relative
 * (`./git`, `bin/tool`) or inside the workspace is refused.
 */
export function resolveExecutable(command: string, directories: readonly string[], workspace: string, tool: string | undefined): string {
  if (path.isAbsolute(command) && !command.includes('\0')) {
    const normalized = path.normalize(command);
    const directory = path.dirname(normalized);
    if (directories.includes(directory) && !isInside(workspace, normalized)) {
      const found = findProgram(path.basename(normalized), [directory]);
      if (found !== undefined) return found;
    }
    throw hostDenial(tool, 'executable_not_found');
  }
  const found = findProgram(command, directories);
  if (found === undefined) throw hostDenial(tool, 'executable_not_found');
  return found;
}
