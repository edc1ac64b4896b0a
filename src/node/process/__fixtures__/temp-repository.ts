import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A way to make folders (real paths) for one test file's tests, each removed after its test. */
export function useTempFolders(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
  });
  return () => {
    const folder = realpathSync(mkdtempSync(path.join(tmpdir(), `${prefix}-`)));
    made.push(folder);
    return folder;
  };
}

/** The user's git in `cwd`, with an identity to commit as. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.com', ...args], { cwd, encoding: 'utf8' });
}
