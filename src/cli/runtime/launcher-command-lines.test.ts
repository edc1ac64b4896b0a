import { describe, expect, it } from 'vitest';
import { barePreload, denoCommand, envAssignments, envCommandIndex, nodeLauncherScript, nodeOptionsArgs, npmRunsPackage, pnpmRunsPackage } from './launcher-command-lines.js';

describe('launcher command lines', () => {
  it("finds npm's and pnpm's command past their options and the values of options it does not know", () => {
    expect(npmRunsPackage(['--loglevel', 'silent', 'exec', 'pkg'])).toBe(true);
    expect(npmRunsPackage(['exe', 'pkg'])).toBe(true);
    expect(npmRunsPackage(['run', 'exec'])).toBe(false);
    expect(pnpmRunsPackage(['--reporter', 'silent', 'dlx', 'pkg'])).toBe(true);
    expect(pnpmRunsPackage(['exec', 'dlx'])).toBe(false);
    expect(denoCommand(['-L', 'info', 'x', 'pkg'])).toBe('x');
    expect(denoCommand(['-q', 'run', 'main.ts'])).toBe('run');
  });

  it("reads env's arguments as GNU env does for the options it knows, and refuses to read any other", () => {
    expect(envCommandIndex(['-v', 'A=1', '-C', '/srv', '--chdir=/srv', 'npx', 'pkg'])).toBe(5);
    expect(envCommandIndex(['--', 'A=1'])).toBe(1);
    expect(envCommandIndex(['A=1'])).toBe(-1);
    // -i and -u took off what toolgate sets for the command (`launcherEnv`): not read, so refused.
    for (const args of [['-S', 'npx pkg'], ['-vu', 'X', 'npx'], ['--uns', 'X', 'npx'], ['--split=npx', '.'], ['-i', 'npx'], ['--ignore-environment', 'npx'], ['-u', 'TSX_TSCONFIG_PATH', 'tsx'], ['--unset=PYTHONSAFEPATH', 'python3']]) {
      expect(envCommandIndex(args), args.join(' ')).toBeUndefined();
    }
    expect(envAssignments(['-C', 'A=B', 'NODE_OPTIONS=-r x', 'EMPTY='])).toEqual({ NODE_OPTIONS: '-r x', EMPTY: '' });
  });

  it('tells a module node loads by a bare name from one named by its path or URL', () => {
    expect(barePreload(['--import', 'tsx', 's.ts'])).toBe('tsx');
    expect(barePreload(['--experimental_loader=ts-node/esm', 's.ts'])).toBe('ts-node/esm');
    expect(barePreload(['-r', 'C:\\tsx\\index.cjs', '--import', '../r.mjs', '--import=node:util', 's.js'])).toBeUndefined();
    expect(nodeOptionsArgs('--max-old-space-size=64 --import "/opt/my tsx/index.mjs" -r dotenv/config')).toEqual(['--max-old-space-size=64', '--import', '/opt/my tsx/index.mjs', '-r', 'dotenv/config']);
  });

  it("finds a launcher script among node's arguments, past an option's value it does not know, but not in inline code", () => {
    const launcherOf = (path: string): string => (path.endsWith('npx-cli.js') ? 'npx' : path);
    expect(nodeLauncherScript(['--disable-warning', 'X', '/usr/lib/node_modules/npm/bin/npx-cli.js', 'pkg'], launcherOf)).toEqual({ at: 2, launcher: 'npx' });
    expect(nodeLauncherScript(['-e', 'x', '/usr/lib/node_modules/npm/bin/npx-cli.js'], launcherOf)).toBeUndefined();
    expect(nodeLauncherScript(['server.js', 'x', '/usr/lib/node_modules/npm/bin/npx-cli.js'], launcherOf)).toEqual({ at: 2, launcher: 'npx' });
    expect(nodeLauncherScript(['--', '/usr/lib/node_modules/npm/bin/npx-cli.js'], launcherOf)).toEqual({ at: 1, launcher: 'npx' });
    expect(nodeLauncherScript(['server.js', '--', 'x', '/usr/lib/node_modules/npm/bin/npx-cli.js'], launcherOf)).toBeUndefined();
  });
});
