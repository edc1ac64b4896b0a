import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBwrapArgs, detectBwrap, maskKind, SANDBOX_FILTER, SANDBOX_FILTER_FD } from './bwrap-sandbox.js';

let base: string;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-bwrap-'));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

function args(workspace: string, hidden: readonly string[]): string[] {
  return buildBwrapArgs({ workspace, scope: 'workspace-write', cwd: workspace, env: {}, hidden: hidden.map((entry) => ({ path: entry })), readOnly: [], file: '/bin/true', args: [] });
}

/** The mask flags bwrap gets for `target`: `['--tmpfs', target]`, `['--ro-bind', '/dev/null', target]`, or none. */
function maskFor(list: readonly string[], target: string): string[] {
  const at = list.indexOf(target);
  if (at < 0 || at >= list.indexOf('--')) return [];
  return list[at - 1] === '--tmpfs' ? ['--tmpfs', target] : list.slice(at - 2, at + 1);
}

describe('bwrap arguments', () => {
  it('bind the repository onto itself and its hooks and configuration read-only, after the workspace, in a writing tier only', () => {
    const repository = { folders: ['/w/.git'], readOnly: ['/w/.git/hooks', '/w/.git/config'] };
    const options = { workspace: '/w', cwd: '/w', env: {}, hidden: [], readOnly: [], repository, file: '/bin/true', args: [] };
    const built = buildBwrapArgs({ ...options, scope: 'workspace-write' });
    const bound = built.indexOf('/w/.git');
    expect(built.slice(bound - 1, bound + 2)).toEqual(['--bind', '/w/.git', '/w/.git']);
    expect(bound).toBeGreaterThan(built.lastIndexOf('/w', bound));
    expect(built.slice(bound + 2, bound + 8)).toEqual(['--ro-bind', '/w/.git/config', '/w/.git/config', '--ro-bind', '/w/.git/hooks', '/w/.git/hooks']);
    expect(buildBwrapArgs({ ...options, scope: 'read-only' })).not.toContain('/w/.git');
  });

  it('bind the folders the kept links are in onto themselves, and the folders above them, in a writing tier only; the workspace is bound already', () => {
    const options = { workspace: '/w', cwd: '/w', env: {}, hidden: [], readOnly: [], pinned: ['/w', '/w/a/b'], file: '/bin/true', args: [] };
    const built = buildBwrapArgs({ ...options, scope: 'workspace-write' });
    const pinned = built.indexOf('/w/a/b');
    expect(built.slice(pinned - 1, pinned + 2)).toEqual(['--bind', '/w/a/b', '/w/a/b']);
    expect(built.filter((arg) => arg === '/w').length).toBe(3);
    expect(buildBwrapArgs({ ...options, scope: 'read-only' })).not.toContain('/w/a/b');
  });

  it('bind each held place and the folders above it before the masks, outermost first, read-only inside a read-only place, and nothing more inside one', async () => {
    const w = path.join(base, 'held');
    for (const folder of ['.git/modules/libs/sub/hooks', 'libs/sub', 'lib2/deep', 'notes']) await mkdir(path.join(w, folder), { recursive: true });
    for (const file of ['libs/sub/.git', 'lib2/deep/.env', 'notes/.env']) await writeFile(path.join(w, file), '');
    const at = (relative: string): string => path.join(w, relative);
    const repository = { folders: [at('.git')], readOnly: [at('.git/config'), at('.git/modules'), at('.git/modules/libs/sub'), at('libs/sub/.git'), at('lib2')] };
    const built = buildBwrapArgs({ workspace: w, scope: 'workspace-write', cwd: w, env: {}, hidden: [{ path: at('lib2/deep/.env') }, { path: at('notes/.env') }], readOnly: [], repository, file: '/bin/true', args: [] });
    const mounts = (): string[][] => {
      const found: string[][] = [];
      for (let i = built.indexOf(w) + 1; i < built.indexOf('--'); i += 1) if (built[i] === '--bind' || built[i] === '--ro-bind' || built[i] === '--tmpfs') found.push(built[i] === '--tmpfs' ? built.slice(i, i + 2) : built.slice(i, i + 3));
      return found.map((mount) => [mount[0] as string, path.relative(w, mount.at(-1) as string), ...(mount[1] === '/dev/null' ? ['masked'] : [])]);
    };
    expect(mounts()).toEqual([
      ['--bind', '.git'],
      ['--ro-bind', 'lib2'],
      ['--bind', 'libs'],
      ['--bind', 'notes'],
      ['--ro-bind', '.git/config'],
      // The submodule's git folder lies in the read-only `modules`, and `lib2/deep` in the read-only `lib2`: not bound.
      ['--ro-bind', '.git/modules'],
      ['--bind', 'libs/sub'],
      ['--ro-bind', 'libs/sub/.git'],
      ['--ro-bind', 'lib2/deep/.env', 'masked'],
      ['--ro-bind', 'notes/.env', 'masked'],
    ]);
    // In a tier that writes nothing, nothing of the repository is bound: the workspace is read-only whole.
    const readOnlyTier = buildBwrapArgs({ workspace: w, scope: 'read-only', cwd: w, env: {}, hidden: [], readOnly: [], repository, file: '/bin/true', args: [] });
    expect(readOnlyTier).not.toContain(at('.git/modules'));
  });

  it('drop every capability and install the socket filter, in the real arguments and in the probe', async () => {
    const built = args('/w', []);
    const separator = built.indexOf('--');
    const capDrop = built.indexOf('--cap-drop');
    expect(capDrop).toBeGreaterThanOrEqual(0);
    expect(capDrop).toBeLessThan(separator);
    expect(built[capDrop + 1]).toBe('ALL');

    // A stand-in bwrap records what the probe passes.
    const bin = path.join(base, 'fake-bin');
    await mkdir(bin, { recursive: true });
    const recorded = path.join(base, 'probe-args');
    const program = path.join(base, 'probe-program');
    await writeFile(path.join(bin, 'bwrap'), `#!/bin/sh\nprintf '%s\\n' "$@" > ${recorded}\ncat <&3 > ${program}\n`);
    await chmod(path.join(bin, 'bwrap'), 0o755);
    expect(await detectBwrap([bin])).toBe(path.join(bin, 'bwrap'));
    const probe = (await readFile(recorded, 'utf8')).trim().split('\n');
    expect(probe.slice(probe.indexOf('--cap-drop'), probe.indexOf('--cap-drop') + 2)).toEqual(['--cap-drop', 'ALL']);
    expect(probe.indexOf('--cap-drop')).toBeLessThan(probe.indexOf('--'));
    // And the socket filter, fed on the descriptor it names, both in the probe and in every command's arguments.
    expect(SANDBOX_FILTER).toBeDefined();
    expect(probe.slice(probe.indexOf('--seccomp'), probe.indexOf('--seccomp') + 2)).toEqual(['--seccomp', String(SANDBOX_FILTER_FD)]);
    expect(new Uint8Array(await readFile(program))).toEqual(SANDBOX_FILTER);
    expect(built.slice(built.indexOf('--seccomp'), built.indexOf('--seccomp') + 2)).toEqual(['--seccomp', String(SANDBOX_FILTER_FD)]);
    expect(built.indexOf('--seccomp')).toBeLessThan(separator);
  });

  it('mask each hidden path as what it is at the time of the call, and skip what is not there', async () => {
    const workspace = path.join(base, 'ws-kinds');
    await mkdir(workspace, { recursive: true });
    const secrets = path.join(workspace, 'secrets');
    const env = path.join(workspace, '.env');
    const deep = path.join(workspace, 'config', 'key.json');
    const hidden = [secrets, env, deep];

    // Nothing exists yet: no mask, so bwrap is never asked to create a mount point in the workspace.
    let built = args(workspace, hidden);
    for (const target of hidden) expect(maskFor(built, target), target).toEqual([]);

    // Created later, as a folder and as a file: each is masked as what it now is.
    await mkdir(secrets);
    await writeFile(env, 'TOKEN=1\n');
    built = args(workspace, hidden);
    expect(maskFor(built, secrets)).toEqual(['--tmpfs', secrets]);
    expect(maskFor(built, env)).toEqual(['--ro-bind', '/dev/null', env]);
    expect(maskFor(built, deep)).toEqual([]);

    // And when a path changes kind, the next call follows.
    await rm(env);
    await mkdir(env);
    expect(maskFor(args(workspace, hidden), env)).toEqual(['--tmpfs', env]);
  });

  it('in full, bind every folder above a mask outside the workspace onto itself, outermost first, so none can be moved aside', async () => {
    // Outside /tmp, which the sandbox replaces with its own.
    const home = await mkdtemp('/var/tmp/toolgate-bwrap-home-');
    try {
      const state = path.join(home, '.config', 'toolgate');
      await mkdir(state, { recursive: true });
      const workspace = path.join(base, 'ws-full');
      await mkdir(path.join(workspace, 'config'), { recursive: true });
      await writeFile(path.join(workspace, 'config', 'key.json'), '{}');
      const hidden = [path.join(workspace, 'config', 'key.json'), state, path.join(base, 'store')].map((entry) => ({ path: entry }));
      const built = buildBwrapArgs({ workspace, scope: 'full', cwd: workspace, env: {}, hidden, readOnly: [], file: '/bin/true', args: [] });
      const binds = built.flatMap((flag, at) => {
        const folder = built[at + 1];
        return flag === '--bind' && folder !== undefined && folder === built[at + 2] && folder !== '/' ? [folder] : [];
      });
      const above = home.split(path.sep).slice(1).map((_, index, names) => path.sep + names.slice(0, index + 1).join(path.sep));
      // The workspace too: it lies under /tmp, so it is bound again over the sandbox's own.
      expect([...binds].sort()).toEqual([...above, path.join(home, '.config'), workspace, path.join(workspace, 'config')].sort());
      for (const folder of binds) expect(binds.indexOf(path.dirname(folder)), folder).toBeLessThan(binds.indexOf(folder));
      expect(built.indexOf(state)).toBe(built.indexOf('--tmpfs', built.indexOf(path.join(home, '.config'))) + 1);
      // Not in a tier whose root is read-only: nothing there can be moved.
      const readOnlyRoot = buildBwrapArgs({ workspace, scope: 'workspace-write', cwd: workspace, env: {}, hidden, readOnly: [], file: '/bin/true', args: [] });
      expect(readOnlyRoot).not.toContain(path.join(home, '.config'));
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('in every tier, bind a workspace inside a folder the sandbox replaces after that folder, and its masks after it', async () => {
    await mkdir(path.join(base, 'ws-own', 'config'), { recursive: true });
    await writeFile(path.join(base, 'ws-own', 'config', 'key.json'), '{}');
    for (const [workspace, own] of [
      [path.join(base, 'ws-own'), '/tmp'],
      ['/tmp', '/tmp'],
      ['/dev/shm/ws', '/dev'],
    ] as const) {
      for (const scope of ['full', 'workspace-write', 'read-only'] as const) {
        const mask = path.join(workspace, 'config', 'key.json');
        const built = buildBwrapArgs({ workspace, scope, cwd: workspace, env: {}, hidden: [{ path: mask }], readOnly: [], file: '/bin/true', args: [] });
        const at = built.findIndex((flag, index) => (flag === '--bind' || flag === '--ro-bind') && built[index + 1] === workspace && built[index + 2] === workspace);
        expect(at, `${scope} ${workspace}`).toBeGreaterThan(built.indexOf(own));
        expect(built[at], `${scope} ${workspace}`).toBe(scope === 'read-only' ? '--ro-bind' : '--bind');
        if (workspace === path.join(base, 'ws-own')) expect(built.indexOf(mask), scope).toBeGreaterThan(at);
      }
    }
  });

  it('judge a symlink by its target, a dangling link or a path through a file as missing', async () => {
    const workspace = path.join(base, 'ws-links');
    await mkdir(path.join(workspace, 'real-dir'), { recursive: true });
    await writeFile(path.join(workspace, 'real-file'), 'x');
    await symlink(path.join(workspace, 'real-dir'), path.join(workspace, 'dir-link'));
    await symlink(path.join(workspace, 'real-file'), path.join(workspace, 'file-link'));
    await symlink(path.join(workspace, 'nowhere'), path.join(workspace, 'dangling'));
    expect(maskKind(path.join(workspace, 'real-dir'))).toBe('directory');
    expect(maskKind(path.join(workspace, 'real-file'))).toBe('file');
    expect(maskKind(path.join(workspace, 'dir-link'))).toBe('directory');
    expect(maskKind(path.join(workspace, 'file-link'))).toBe('file');
    expect(maskKind(path.join(workspace, 'dangling'))).toBeUndefined();
    expect(maskKind(path.join(workspace, 'missing'))).toBeUndefined();
    expect(maskKind(path.join(workspace, 'real-file', 'below'))).toBeUndefined();
  });
});
