import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomicSync } from '../fs/write-file-atomic.js';

/**
 * Git calls an external diff as `cmd path old-file old-hex old-mode
 * new-file new-hex new-mode`. This shim, owned by the host and outside the
 * workspace, answers with a plain unified diff, so `diff.external` can be
 * pinned to something harmless without breaking `git diff`.
 */
export function writeGitDiffShim(directory: string): string {
  mkdirSync(directory, { recursive: true, mode: 0o755 });
  const shim = path.join(directory, 'toolgate-git-diff');
  // Replaced, never written through: a link planted at this name would have the shim's text and mode land on what it leads to.
  writeFileAtomicSync(shim, '#!/bin/sh\ndiff -u --label "a/$1" --label "b/$1" -- "$2" "$5"\n[ $? -le 1 ]\n', { mode: 0o755 });
  chmodSync(shim, 0o755);
  return shim;
}
