import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';

/** Names tried for an entry moved aside: the plain one and random ones beside it, then random ones at the workspace's top. */
const MOVE_ATTEMPTS = 8;

/**
 * Moves `entry` aside, to `name` beside it, or when that is taken to `name`
 * and a random suffix, which no command can take ahead; when no name beside
 * it can be had (a path past the system's limit), to such a name at the top
 * of the workspace. Where it went, `gone` when nothing is there to move, or
 * `failed`. Never throws.
 */
export function moveAside(entry: string, name: string, workspace: string): { readonly to: string } | 'gone' | 'failed' {
  const beside = path.dirname(entry);
  for (let attempt = 0; attempt < MOVE_ATTEMPTS; attempt += 1) {
    const folder = attempt < MOVE_ATTEMPTS / 2 ? beside : workspace;
    const to = path.join(folder, attempt === 0 ? name : `${name}-${randomBytes(6).toString('hex')}`);
    try {
      if (lstatSync(to, { throwIfNoEntry: false }) !== undefined) continue;
      renameSync(entry, to);
      return { to };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && lstatSync(entry, { throwIfNoEntry: false }) === undefined) return 'gone';
      // A command took the owner's write permission off the folder (a gateway not running as root): given back once.
      if ((code === 'EACCES' || code === 'EPERM') && attempt === 0) givesBackWrite(beside);
      // Anything else (a name made there since it was looked at, a path too long): another name, then another place.
    }
  }
  return 'failed';
}

/** Gives the owner's write permission on `folder` back, if it can. */
function givesBackWrite(folder: string): void {
  try {
    chmodSync(folder, statSync(folder).mode | 0o300);
  } catch {
    // Left as it is: the move fails, and the call says so.
  }
}

/** `place` as a path from the workspace, with `/` separators. */
export function fromWorkspace(workspace: string, place: string): string {
  return path.relative(workspace, place).split(path.sep).join('/');
}
