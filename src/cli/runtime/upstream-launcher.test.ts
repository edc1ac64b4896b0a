import { describe, expect, it } from 'vitest';
import { launcherArgs, launcherEnv } from './upstream-launcher.js';

describe('launcherArgs', () => {
  it('gives npx and npm exec a prefix of the gateway\'s own, so the workspace never supplies the package', () => {
    expect(launcherArgs('npx', ['-y', '@modelcontextprotocol/server-filesystem', '.'], '/home/me/.config/toolgate')).toEqual(['--prefix=/home/me/.config/toolgate', '-y', '@modelcontextprotocol/server-filesystem', '.']);
    expect(launcherArgs('/usr/bin/npx', ['pkg'], '/n')).toEqual(['--prefix=/n', 'pkg']);
    expect(launcherArgs('C:\\node\\npx.cmd', ['pkg'], '/n')).toEqual(['--prefix=/n', 'pkg']);
    expect(launcherArgs('npm', ['exec', '--yes', 'pkg'], '/n')).toEqual(['exec', '--prefix=/n', '--yes', 'pkg']);
    expect(launcherArgs('npm', ['x', 'pkg'], '/n')).toEqual(['x', '--prefix=/n', 'pkg']);
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
