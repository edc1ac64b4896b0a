import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';

/** A plain program name: no separator, no NUL, not `.`/`..`. */
export function isPlainProgramName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\\') && !name.includes('\0');
}

/** The absolute path of an executable regular file named `name` in the first directory that has one. */
export async function findProgram(name: string, directories: readonly string[]): Promise<string | undefined> {
  if (!isPlainProgramName(name)) return undefined;
  for (const directory of directories) {
    const candidate = path.join(directory, name);
    try {
      if (!(await stat(candidate)).isFile()) continue;
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here (absent or not executable): try the next directory.
    }
  }
  return undefined;
}
