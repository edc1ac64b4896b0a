import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/spawn-cli.js';

// The operator installed a project's own command by linking it onto the PATH (`npm link`, or `ln -s
// ~/project/bin/tool /usr/local/bin/tool`) and allows it by name. The file that runs is the workspace's, which a
// model under `accept-edits` rewrites with no card, then runs by the allowed name: the host's rule that no
// workspace program runs judged the name on the PATH, not the file it leads to. Driven through `toolgate call`
// as a real process, with a real link in /usr/local/bin (one of the host's fixed PATH directories), so only
// where that folder may be written (the tests run as root).

const BIN = '/usr/local/bin';
const writable = process.getuid?.() === 0 && existsSync(BIN);

describe.skipIf(!writable)('attack: a program on the fixed PATH that is a link into the workspace', () => {
  it('is refused as executable_not_found, and the workspace file it leads to never runs', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-attack-linked-program-')));
    const name = `toolgate-attack-${randomBytes(6).toString('hex')}`;
    const link = join(BIN, name);
    writeFileSync(
      join(dir, 'toolgate.config.json'),
      JSON.stringify({ scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy: { allowedCommandGlobs: [`${name} *`, name], allow: [`Bash(${name} *)`, `Bash(${name})`] } }),
    );
    // What the model wrote into the project's own script: a payload leaving a marker where the sandbox lets it write.
    writeFileSync(join(dir, 'tool.sh'), '#!/bin/sh\ntouch "$PWD/PWNED"\necho ran\n');
    chmodSync(join(dir, 'tool.sh'), 0o755);
    symlinkSync(join(dir, 'tool.sh'), link);
    try {
      const called = await runCli(['--json', 'call', 'run_command', JSON.stringify({ command: [name, 'build'] })], dir);
      expect(called.stdout).toContain('"reason": "executable_not_found"');
      expect(existsSync(join(dir, 'PWNED'))).toBe(false);
      // A program of the system that is a link outside the workspace still runs.
      expect((await runCli(['call', 'run_command', JSON.stringify({ command: ['git', '--version'] })], dir)).code).not.toBe(2);
    } finally {
      rmSync(link, { force: true });
    }
  }, 20_000);
});
