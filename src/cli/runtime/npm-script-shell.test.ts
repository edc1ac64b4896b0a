import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeNpmScriptShell } from './npm-script-shell.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
const folder = (): string => {
  const made = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-npm-shell-')));
  folders.push(made);
  return made;
};

/** The PATH a command run through the shell sees, as npm runs it: `<shell> -c <command>` in `cwd`. */
const pathSeen = (shell: string, cwd: string, path: string): string[] => execFileSync(shell, ['-c', 'printf %s "$PATH"'], { cwd, env: { PATH: path }, encoding: 'utf8' }).split(':');

describe('writeNpmScriptShell', () => {
  it("keeps every node_modules/.bin of the working folder and the folders above it, and every relative or empty entry, off PATH", () => {
    const home = folder();
    const workspace = join(home, 'repo', 'packages', 'server');
    mkdirSync(workspace, { recursive: true });
    const shell = writeNpmScriptShell(home);
    const cache = join(home, '.npm', '_npx', 'abc', 'node_modules', '.bin');
    const given = [
      cache,
      join(workspace, 'node_modules', '.bin'),
      join(home, 'repo', 'packages', 'node_modules', '.bin'),
      join(home, 'repo', 'node_modules', '.bin'),
      '/node_modules/.bin',
      join(home, 'repo-other', 'node_modules', '.bin'),
      `${join(workspace, 'node_modules', '.bin')}//`,
      `${join(home, 'repo', 'node_modules', '.bin')}/`,
      join(workspace, '.npm', '_npx', 'def', 'node_modules', '.bin'),
      '',
      '.',
      'node_modules/.bin',
      '/usr/bin',
      '/bin',
    ];
    // npx's cache inside the working folder (a home folder served whole) stays: it holds the package's own commands.
    expect(pathSeen(shell, workspace, given.join(':'))).toEqual([cache, join(home, 'repo-other', 'node_modules', '.bin'), join(workspace, '.npm', '_npx', 'def', 'node_modules', '.bin'), '/usr/bin', '/bin']);
  });

  it('judges the real folder it runs in, reached through a link', () => {
    const home = folder();
    const real = join(home, 'real');
    mkdirSync(real);
    symlinkSync(real, join(home, 'link'));
    const shell = writeNpmScriptShell(home);
    expect(pathSeen(shell, join(home, 'link'), `${join(real, 'node_modules', '.bin')}:/usr/bin`)).toEqual(['/usr/bin']);
  });

  it('holds a folder name with glob and pattern characters as written', () => {
    const home = folder();
    const odd = join(home, 'a*[b]?c');
    mkdirSync(odd);
    const shell = writeNpmScriptShell(home);
    expect(pathSeen(shell, odd, `${join(odd, 'node_modules', '.bin')}:${join(home, 'a1[b]?c', 'node_modules', '.bin')}:/usr/bin`)).toEqual([join(home, 'a1[b]?c', 'node_modules', '.bin'), '/usr/bin']);
  });

  it('replaces a link planted at its name rather than writing through it, and is executable', () => {
    const home = folder();
    const target = join(home, 'elsewhere');
    symlinkSync(target, join(home, 'npm-script-shell'));
    const shell = writeNpmScriptShell(home);
    expect(statSync(shell).mode & 0o777).toBe(0o755);
    expect(() => statSync(target)).toThrow();
  });
});
