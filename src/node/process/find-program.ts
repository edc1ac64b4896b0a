import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** A plain program name: no separator, no NUL, not `.`/`..`. */
export function isPlainProgramName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\\') && !name.includes('\0');
}

/**
 * The absolute path of an executable regular file named `name` in the first
 * directory that has one. Synchronous on purpose: a few `stat` calls in
 * root-owned system directories take microseconds, while each asynchronous
 * call is a thread-pool round trip that costs more than the lookup itself
 * (it made `run_command` half again as slow as a bare spawn).
 */
export function findProgram(name: string, directories: readonly string[]): string | undefined {
  if (!isPlainProgramName(name)) return undefined;
  for (const directory of directories) {
    const candidate = path.join(directory, name);
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile() !== true) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Present but not executable for us: try the next directory.
    }
  }
  return undefined;
}
