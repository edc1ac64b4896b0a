import { describe, expect, it } from 'vitest';
import { checkCommand } from './check-command.js';
import { npmDanger } from './npm-danger.js';

const underGlob = (argv: string[]) => checkCommand(argv, { commands: [], globs: [['npm', '*']] });

describe('npmDanger', () => {
  it.each([
    [['exec', '-c', 'touch x']],
    [['x', 'cowsay']],
    [['exe', 'cowsay']],
    [['--loglevel', 'silent', 'exec', 'cowsay']],
    [['explore', 'left-pad', '--', 'touch ../../x']],
    [['explore', 'left-pad', '--shell=touch x']],
    [['init', 'vite']],
    [['create', 'vite', '--', '--template', 'react']],
    [['test', '--script-shell=./payload.sh']],
    [['run', 'build', '--script-sh', '/bin/evil']],
    [['install', '--node-options=--require=./x.js']],
    [['i', '--node-opt', '--import=data:text/javascript,1']],
    [['edit', 'left-pad', '--editor=sh -c touch${IFS}x']],
    [['--editor=sh -c touch${IFS}x', 'edit', 'left-pad']],
    [['edit', 'left-pad']],
    [['config', 'edit']],
    [['c', 'e']],
    [['install', 'github:a/b', '--git=./evil.sh']],
    [['rebuild', '--node-gyp=./evil.sh']],
    [['init', '-y', '--init-module=./evil.js']],
    [['test', '--userconfig=./evil-npmrc']],
    [['test', '--globalconf', './evil-npmrc']],
  ])('refuses npm %j under a glob', (args) => {
    expect(npmDanger(args)).toBeDefined();
    expect(underGlob(['npm', ...args])).toMatchObject({ ok: false, detail: expect.stringContaining('npm exec/x, explore') as unknown });
  });

  it.each([
    [['test']],
    [['run', 'build']],
    [['install']],
    [['init', '-y']],
    [['ci']],
    [['run', 'test', '--', '--script-shell=x']],
    [['--loglevel', 'silent', 'test']],
    [['uninstall', 'left-pad']],
    [['install', '--global', 'left-pad']],
    [['version', 'patch', '--git-tag-version=false']],
    [['config', 'get', 'editor']],
  ])(
    'lets npm %j through',
    (args) => {
      expect(npmDanger(args)).toBeUndefined();
      expect(underGlob(['npm', ...args])).toMatchObject({ ok: true });
    },
  );
});
