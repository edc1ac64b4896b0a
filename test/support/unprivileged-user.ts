import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { CLI } from './spawn-cli.js';

/** The user a gateway is run as, as most people run it: not root (`nobody`). */
export const USER = { uid: 65534, gid: 65534 } as const;

/** Whether the user can reach the built CLI (a checkout in a folder only root may enter cannot run a gateway as them). */
export function userReachesCli(): boolean {
  try {
    execFileSync('test', ['-r', CLI], { ...USER });
    return true;
  } catch {
    return false;
  }
}

/**
 * A maker of folders under /var/tmp (the sandbox gives commands a /tmp of
 * their own) that the user owns. Each is removed after the file's tests, its
 * modes given back first: a test may take them off.
 */
export function userFolders(): (prefix: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const folder of made) {
      execFileSync('chmod', ['-R', 'u+rwx', folder]);
      rmSync(folder, { recursive: true, force: true });
    }
  });
  return (prefix) => {
    const folder = mkdtempSync(join('/var/tmp', prefix));
    made.push(folder);
    chmodSync(folder, 0o755);
    execFileSync('chown', [`${USER.uid}:${USER.gid}`, folder]);
    return folder;
  };
}
