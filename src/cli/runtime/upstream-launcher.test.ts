import { describe, expect, it } from 'vitest';
import { launcherArgs, launcherEnv, refusedLauncher } from './upstream-launcher.js';

describe('launcherArgs', () => {
  it('gives npx and npm exec a prefix of the gateway\'s own, so the workspace never supplies the package', () => {
    expect(launcherArgs('npx', ['-y', '@modelcontextprotocol/server-filesystem', '.'], '/home/me/.config/toolgate')).toEqual(['--prefix=/home/me/.config/toolgate', '-y', '@modelcontextprotocol/server-filesystem', '.']);
    expect(launcherArgs('/usr/bin/npx', ['pkg'], '/n')).toEqual(['--prefix=/n', 'pkg']);
    expect(launcherArgs('C:\\node\\npx.cmd', ['pkg'], '/n')).toEqual(['--prefix=/n', 'pkg']);
    expect(launcherArgs('npm', ['exec', '--yes', 'pkg'], '/n')).toEqual(['exec', '--prefix=/n', '--yes', 'pkg']);
    expect(launcherArgs('npm', ['x', 'pkg'], '/n')).toEqual(['x', '--prefix=/n', 'pkg']);
  });

  it('gives pnpm dlx a folder of the gateway\'s own to read its configuration from, so the workspace\'s .npmrc never chooses the registry', () => {
    expect(launcherArgs('pnpm', ['dlx', '@modelcontextprotocol/server-filesystem', '.'], '/n')).toEqual(['--dir=/n', 'dlx', '@modelcontextprotocol/server-filesystem', '.']);
    expect(launcherArgs('/usr/local/bin/pnpm', ['--silent', 'dlx', 'pkg'], '/n')).toEqual(['--dir=/n', '--silent', 'dlx', 'pkg']);
    expect(launcherArgs('pnpm.cmd', ['dlx', 'pkg'], '/n')).toEqual(['--dir=/n', 'dlx', 'pkg']);
    // The operator's own folder, and pnpm's other commands (exec and run start the project's code by design).
    for (const args of [['--dir', '/mine', 'dlx', 'pkg'], ['--dir=/mine', 'dlx', 'pkg'], ['-C', '/mine', 'dlx', 'pkg'], ['exec', 'server'], ['run', 'serve']]) expect(launcherArgs('pnpm', args, '/n')).toEqual(args);
  });

  it('refuses pnpx and bunx, which toolgate cannot keep from the workspace\'s code, naming what to write instead', () => {
    expect(refusedLauncher('pnpx', ['pkg'])).toMatch(/^pnpx reads the workspace's \.npmrc.*pnpm dlx/);
    for (const [command, args] of [['bunx', ['pkg']], ['/home/me/.bun/bin/bunx', ['pkg']], ['bun', ['x', 'pkg']], ['bun', ['--bun', 'x', 'pkg']], ['bunx.exe', ['pkg']]] as const) {
      expect(refusedLauncher(command, args), command).toMatch(/^bunx runs the workspace's node_modules\/\.bin/);
    }
    for (const [command, args] of [['npx', ['pkg']], ['pnpm', ['dlx', 'pkg']], ['bun', ['run', 'server.ts']], ['node', ['x']], ['uvx', ['mcp-server-git']]] as const) expect(refusedLauncher(command, args), command).toBeUndefined();
  });

  it('leaves a prefix the operator gave, and every other command, as configured', () => {
    expect(launcherArgs('npx', ['--prefix', '/mine', 'pkg'], '/n')).toEqual(['--prefix', '/mine', 'pkg']);
    expect(launcherArgs('npx', ['--prefix=/mine', 'pkg'], '/n')).toEqual(['--prefix=/mine', 'pkg']);
    expect(launcherArgs('npm', ['run', 'serve'], '/n')).toEqual(['run', 'serve']);
    expect(launcherArgs('node', ['server.js'], '/n')).toEqual(['server.js']);
    expect(launcherArgs('uvx', ['mcp-server-git'], '/n')).toEqual(['mcp-server-git']);
  });
});

describe('launcherEnv', () => {
  it('keeps the working directory off python -m\'s module path unless the configuration says otherwise', () => {
    expect(launcherEnv(undefined)).toEqual({ PYTHONSAFEPATH: '1' });
    expect(launcherEnv({ TOKEN: 'x' })).toEqual({ PYTHONSAFEPATH: '1', TOKEN: 'x' });
    expect(launcherEnv({ PYTHONSAFEPATH: '' })).toEqual({ PYTHONSAFEPATH: '' });
  });
});
