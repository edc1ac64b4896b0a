import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** What a file outside the workspace holds: no answer of a call may contain it. */
export const OUTSIDE_SECRET = 'outside-the-workspace-do-not-leak';

export interface AttackWorkspace {
  readonly workspace: string;
  /** A file outside the workspace holding `OUTSIDE_SECRET`. */
  readonly outside: string;
  /** The gateway configuration written in the workspace. */
  readonly config: string;
}

/**
 * A workspace holding `notes.md` ("inside") and a configuration serving
 * `servers` with the console off, beside a file outside it that the floor
 * must keep every upstream from reading.
 */
export function attackWorkspace(prefix: string, servers: Record<string, object>): AttackWorkspace {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), `${prefix}-`)));
  const outside = join(realpathSync(mkdtempSync(join(tmpdir(), `${prefix}-outside-`))), 'secret.txt');
  writeFileSync(outside, OUTSIDE_SECRET);
  writeFileSync(join(workspace, 'notes.md'), 'inside\n');
  const config = join(workspace, 'toolgate.config.json');
  writeFileSync(config, JSON.stringify({ servers, console: { enabled: false } }));
  return { workspace, outside, config };
}

/**
 * Homes for gateways under test, made under /var/tmp, not /tmp (the sandbox
 * gives every command a /tmp of its own), and removed after the file's tests:
 * `use('name')` makes one more.
 */
export function useAttackHomes(prefix: string): () => string {
  const homes: string[] = [];
  afterAll(() => {
    for (const home of homes) rmSync(home, { recursive: true, force: true });
  });
  return () => {
    const home = realpathSync(mkdtempSync(`/var/tmp/${prefix}-`));
    homes.push(home);
    return home;
  };
}
