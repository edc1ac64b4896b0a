import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { hostDenial } from '../errors/host-denial.js';
import { isInside, type FsJail } from './fs-jail.js';

export interface JailedPath {
  /** The real path of the deepest existing ancestor. */
  readonly existing: string;
  /** Components below `existing` that do not exist yet (empty when the target exists). */
  readonly missing: readonly string[];
  /** `existing` joined with `missing`. */
  readonly absolute: string;
}

/**
 * Resolve a model-supplied path inside the jail. Lexical escapes (`..`,
 * absolute paths outside) are a pure scope denial the model may correct;
 * a symlink leading out (file, directory, chain) or dangling, a protected
 * path and the host's own stores are fatal. This is the first check: every
 * open re-verifies the descriptor it got, because a parent directory may be
 * swapped between this resolution and the open.
 */
export async function resolveJailedPath(jail: FsJail, requested: string, tool: string | undefined): Promise<JailedPath> {
  if (requested.length === 0 || requested.includes('\0')) throw hostDenial(tool, 'invalid_path');
  const lexical = path.resolve(jail.workspace, requested);
  if (!isInside(jail.root, lexical)) throw hostDenial(tool, 'scope_denied');
  refuseHostPaths(jail, lexical, tool);

  let existing = lexical;
  const missing: string[] = [];
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      missing.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
  }
  let real: string;
  try {
    real = await realpath(existing);
  } catch (error) {
    // lstat saw it but realpath cannot follow it: a dangling symlink or a loop.
    throw hostDenial(tool, 'symlink_refused', error);
  }
  if (!isInside(jail.root, real)) throw hostDenial(tool, 'symlink_refused');
  const absolute = path.join(real, ...missing);
  refuseHostPaths(jail, absolute, tool);
  return { existing: real, missing, absolute };
}

function refuseHostPaths(jail: FsJail, candidate: string, tool: string | undefined): void {
  const refusal = jail.refusal(candidate);
  if (refusal !== undefined) throw hostDenial(tool, refusal);
}
