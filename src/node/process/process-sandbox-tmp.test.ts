import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FsScope } from '../node-host-types.js';
import { exists, plantMaskedKey, useProcessWorkspace } from './__fixtures__/process-workspace.js';

/**
 * A workspace under /tmp (a CI checkout, a `mktemp -d` project), where the
 * sandbox mounts a /tmp of its own: commands see the real workspace in every
 * tier, its protected files stay masked, and the rest of the host's /tmp
 * stays out of sight. The fixture's workspaces all live under /tmp.
 */
const setup = useProcessWorkspace();

/** A workspace under the fixture's /tmp folder holding `notes.md` and a `.env`. */
async function tmpWorkspace(...names: string[]): Promise<string> {
  const ws = path.join(setup.base, ...names);
  await mkdir(ws, { recursive: true });
  await writeFile(path.join(ws, 'notes.md'), 'TMP-VISIBLE\n');
  await writeFile(path.join(ws, '.env'), 'TMP-ENV-SECRET\n');
  return ws;
}

describe('process: a workspace under /tmp, which the sandbox replaces with its own', () => {
  it.for<FsScope>(['full', 'workspace-write', 'read-only'])('in %s, commands see the workspace, a write lands in it (where the tier writes), and .env still reads as nothing', async (scope, context) => {
    const ws = await tmpWorkspace(`ws-${scope}`);
    await writeFile(path.join(setup.outside, 'host-tmp.txt'), 'HOST-TMP-SECRET\n');
    const host = setup.makeHost({ workspace: ws, sandbox: 'auto', scope });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    const listed = await host.process.spawn('ls', ['-A'], {}, {});
    expect(listed.sandbox).toBe('bwrap');
    expect(listed.stdout).toContain('notes.md');
    expect((await host.process.spawn('cat', ['notes.md'], {}, {})).stdout).toBe('TMP-VISIBLE\n');
    const write = await host.process.spawn('cp', ['notes.md', 'copy.md'], {}, {});
    expect(await exists(path.join(ws, 'copy.md'))).toBe(scope !== 'read-only');
    if (scope !== 'read-only') expect(write.exitCode).toBe(0);
    const leak = await host.process.spawn('sh', ['-c', 'cat .env; grep -r TMP-ENV-SECRET .'], {}, {});
    expect(leak.stdout + leak.stderr).not.toContain('TMP-ENV-SECRET');
    expect(await readFile(path.join(ws, '.env'), 'utf8')).toBe('TMP-ENV-SECRET\n');
    // The rest of the host's /tmp, beside the workspace, is not there.
    const beside = await host.process.spawn('sh', ['-c', `cat ${path.join(setup.outside, 'host-tmp.txt')}; ls -A ${setup.base}`], {}, {});
    expect(beside.stdout + beside.stderr).not.toContain('HOST-TMP-SECRET');
    expect(beside.stdout).not.toContain('outside');
  });

  it('in full, keeps a masked path under its mask: the folders above it cannot be renamed or removed', async (context) => {
    const ws = await tmpWorkspace('ws-full-moves');
    const expectMasked = await plantMaskedKey(ws);
    const host = setup.makeHost({ workspace: ws, sandbox: 'auto', scope: 'full', protectedPaths: ['config/prod/key.json'] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    await expectMasked(host);
  });

  it('in full, a workspace reached through a link, or under folders named like protected ones, is the real one, with its .env masked', async (context) => {
    const real = await tmpWorkspace('real');
    await symlink(real, path.join(setup.base, 'link'));
    const named = await tmpWorkspace('.ssh', '.env', 'ws');
    for (const workspace of [path.join(setup.base, 'link'), named]) {
      const host = setup.makeHost({ workspace, sandbox: 'auto', scope: 'full' });
      if ((await host.sandboxStatus()) !== 'bwrap') {
        context.skip('bwrap is not installed or cannot create namespaces in this environment');
        return;
      }
      const read = await host.process.spawn('sh', ['-c', 'cat notes.md; cat .env; grep -r TMP-ENV-SECRET .; touch made.txt'], {}, {});
      expect(read.stdout, workspace).toContain('TMP-VISIBLE');
      expect(read.stdout + read.stderr, workspace).not.toContain('TMP-ENV-SECRET');
    }
    expect(await readdir(real)).toContain('made.txt');
    expect(await readdir(named)).toContain('made.txt');
  });
  it('in full, git diff runs through the host diff shim, with the spill folder under /tmp beside the workspace or inside it', async (context) => {
    const ws = await tmpWorkspace('ws-full-git');
    const git = (...args: string[]): string => execFileSync('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], { encoding: 'utf8' });
    git('init', '-q');
    git('add', 'notes.md');
    git('commit', '-qm', 'one');
    await writeFile(path.join(ws, 'notes.md'), 'TMP-CHANGED\n');
    for (const spillDir of [path.join(setup.base, 'spill-beside'), path.join(ws, '.toolgate', 'spill')]) {
      const host = setup.makeHost({ workspace: ws, sandbox: 'auto', scope: 'full', spillDir, privatePaths: ['.toolgate'] });
      if ((await host.sandboxStatus()) !== 'bwrap') {
        context.skip('bwrap is not installed or cannot create namespaces in this environment');
        return;
      }
      const diff = await host.process.spawn('git', ['diff'], {}, {});
      expect(diff.stdout, spillDir).toContain('+TMP-CHANGED');
      // The spill folder itself stays masked: the shim is all a command sees of it.
      const spill = await host.process.spawn('ls', ['-A', spillDir], {}, {});
      expect(spill.stdout.trim(), spillDir).toBe('bin');
    }
  });
});

describe('process: masks spelled through /tmp, which the sandbox replaces with its own', () => {
  it.for<FsScope>(['full', 'workspace-write'])('in %s, a home reached through a link under /tmp, whose real folder is the workspace, keeps its credential stores masked', async (scope, context) => {
    const ws = await tmpWorkspace(`ws-home-${scope}`);
    await writeFile(path.join(ws, '.claude.json'), '{"oauthAccount":"LINKED-HOME-SECRET"}');
    await mkdir(path.join(ws, '.config', 'gh'), { recursive: true });
    await writeFile(path.join(ws, '.config', 'gh', 'hosts.yml'), 'oauth_token: LINKED-HOME-SECRET\n');
    const home = path.join(setup.base, `home-link-${scope}`);
    await symlink(ws, home);
    const host = setup.makeHost({ workspace: ws, sandbox: 'auto', scope, home });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    const read = await host.process.spawn('sh', ['-c', 'cat notes.md; cat .claude.json .config/gh/hosts.yml; grep -r LINKED-HOME-SECRET .'], {}, {});
    expect(read.stdout).toContain('TMP-VISIBLE');
    expect(read.stdout + read.stderr).not.toContain('LINKED-HOME-SECRET');
  });

  it.for<FsScope>(['full', 'workspace-write'])("in %s, a .env that links to a file in the host's /tmp lets commands run, and reads as nothing", async (scope, context) => {
    const ws = await tmpWorkspace(`ws-env-link-${scope}`);
    await writeFile(path.join(setup.outside, `env-${scope}`), 'LINKED-ENV-SECRET\n');
    await rm(path.join(ws, '.env'));
    await symlink(path.join(setup.outside, `env-${scope}`), path.join(ws, '.env'));
    const host = setup.makeHost({ workspace: ws, sandbox: 'auto', scope });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    const read = await host.process.spawn('sh', ['-c', 'cat notes.md; cat .env'], {}, {});
    expect(read.stderr).not.toMatch(/bwrap/);
    expect(read.stdout).toContain('TMP-VISIBLE');
    expect(read.stdout + read.stderr).not.toContain('LINKED-ENV-SECRET');
  });

  it("in full, a home credential store linked into the host's /tmp lets commands run, and they read nothing of it", async (context) => {
    // The home outside /tmp, its `.ssh` and `.npmrc` links to folders under it.
    const home = await mkdtemp('/var/tmp/toolgate-proc-home-');
    try {
      await mkdir(path.join(setup.base, 'ssh-store'));
      await writeFile(path.join(setup.base, 'ssh-store', 'id_ed25519'), 'LINKED-STORE-SECRET\n');
      await writeFile(path.join(setup.base, 'npmrc'), '//registry/:_authToken=LINKED-STORE-SECRET\n');
      await symlink(path.join(setup.base, 'ssh-store'), path.join(home, '.ssh'));
      await symlink(path.join(setup.base, 'npmrc'), path.join(home, '.npmrc'));
      const ws = await tmpWorkspace('ws-store-link');
      const host = setup.makeHost({ workspace: ws, sandbox: 'auto', scope: 'full', home });
      if ((await host.sandboxStatus()) !== 'bwrap') {
        context.skip('bwrap is not installed or cannot create namespaces in this environment');
        return;
      }
      const read = await host.process.spawn('sh', ['-c', `cat notes.md; cat ${home}/.npmrc ${home}/.ssh/id_ed25519`], {}, {});
      expect(read.stderr).not.toMatch(/bwrap/);
      expect(read.stdout).toContain('TMP-VISIBLE');
      expect(read.stdout + read.stderr).not.toContain('LINKED-STORE-SECRET');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
