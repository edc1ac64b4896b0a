import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One temporary folder for the whole test run (vitest's global setup):
 * every `tmpdir()` in the test files, and in the gateways, upstream servers
 * and browsers they start, resolves inside it, since each reads `TMPDIR`
 * and inherits it. It is removed when the run ends, so a run leaves nothing
 * behind in the system's temporary folder, whatever a test forgot to remove
 * or a killed process left there.
 */
export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'toolgate-test-run-'));
  process.env.TMPDIR = folder;
  return () => {
    try {
      rmSync(folder, { recursive: true, force: true });
    } catch (error) {
      // Left for the system to clear: a folder a test made unremovable fails no test that passed.
      console.warn(`toolgate tests: could not remove ${folder}:`, error);
    }
  };
}
