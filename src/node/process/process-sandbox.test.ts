import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { link, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolgateError, ToolPolicyError } from '../../core/internal.js';
import { exists, plantMaskedKey, useProcessWorkspace } from './__fixtures__/process-workspace.js';

/** The bwrap sandbox as commands meet it through the host: network, writes, masks, capabilities. */
const setup = useProcessWorkspace();
const makeHost = setup.makeHost;

describe('process: the bwrap sandbox', () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.end('hello');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const dial = (target: number): string[] => ['-e', `require('net').connect(${target}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(3))`];

  it("'required' fails closed and 'auto' falls back (and says so) when bwrap is absent", async () => {
    const bin = path.join(setup.base, 'bin-without-bwrap');
    await mkdir(bin, { recursive: true });
    await symlink('/usr/bin/true', path.join(bin, 'true')).catch(() => undefined);
    const required = makeHost({ sandbox: 'required', executablePath: [bin] });
    const error = await required.process.spawn('true', [], {}, {}).catch((caught: unknown) => caught);
    expect(ToolgateError.isInstance(error) && error.code).toBe('TOOL_UNAVAILABLE');
    const auto = makeHost({ sandbox: 'auto', executablePath: [bin] });
    expect((await auto.process.spawn('true', [], {}, {})).sandbox).toBe('none');
  });

  it('blocks network and writes setup.outside the setup.workspace when bwrap can run here', async (context) => {
    const host = makeHost({ sandbox: 'auto', scope: 'workspace-write' });
    const status = await host.sandboxStatus();
    const control = await makeHost({ sandbox: 'off' }).process.spawn('node', dial(port), {}, {});
    expect(control.exitCode).toBe(0);
    if (status !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment; sandbox: auto fell back to none');
      return;
    }
    const network = await host.process.spawn('node', dial(port), {}, {});
    expect(network.sandbox).toBe('bwrap');
    expect(network.exitCode).toBe(3);
    const outsideFile = path.join(setup.outside, 'escaped');
    const write = await host.process.spawn('touch', [outsideFile], {}, {});
    expect(write.exitCode).not.toBe(0);
    expect(await exists(outsideFile)).toBe(false);
    expect((await host.process.spawn('touch', ['inside.txt'], {}, {})).exitCode).toBe(0);
    expect(await exists(path.join(setup.workspace, 'inside.txt'))).toBe(true);
    const readOnly = makeHost({ sandbox: 'required', scope: 'read-only' });
    expect((await readOnly.process.spawn('touch', ['ro.txt'], {}, {})).exitCode).not.toBe(0);
    expect(await exists(path.join(setup.workspace, 'ro.txt'))).toBe(false);
    const envDump = await host.process.spawn('env', [], {}, {});
    expect(envDump.stdout).not.toContain('TOOLGATE_');
    const killed = await host.process.spawn('sh', ['-c', 'sleep 30 & echo started; sleep 30'], {}, { timeoutMs: 300 });
    expect(killed.timedOut).toBe(true);
  });

  it('masks protected paths that name one place: a sandboxed command cannot read them either', async (context) => {
    await mkdir(path.join(setup.workspace, 'state'), { recursive: true });
    await writeFile(path.join(setup.workspace, 'state', 'token.txt'), 'state-secret');
    await writeFile(path.join(setup.workspace, 'app.config.json'), '{"token":"config-secret"}');
    const host = makeHost({ sandbox: 'auto', scope: 'workspace-write', protectedPaths: ['state', path.join(setup.workspace, 'app.config.json')] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    const listed = await host.process.spawn('ls', ['-A', 'state'], {}, {});
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toBe('');
    const config = await host.process.spawn('cat', ['app.config.json'], {}, {});
    expect(config.stdout).not.toContain('config-secret');
    // The files themselves are untouched, and the fs tools refuse them too.
    expect(await readFile(path.join(setup.workspace, 'state', 'token.txt'), 'utf8')).toBe('state-secret');
    const read = await host.fs.readFile('state/token.txt').catch((caught: unknown) => caught);
    expect((read as ToolPolicyError).reason).toBe('protected_path');
  });

  it('masks an absolute protected path outside the workspace as the one file it names, glob characters and all', async (context) => {
    const outside = await mkdtemp(path.join('/var/tmp', 'toolgate-masked-outside-'));
    const file = path.join(outside, 'team[prod].json');
    await writeFile(file, '{"deny":["Read(./secret.txt)"]}');
    const host = makeHost({ sandbox: 'auto', scope: 'full', protectedPaths: [file] });
    try {
      if ((await host.sandboxStatus()) !== 'bwrap') {
        context.skip('bwrap is not installed or cannot create namespaces in this environment');
        return;
      }
      const written = await host.process.spawn('node', ['-e', `require('fs').writeFileSync(${JSON.stringify(file)}, '{}')`], {}, {});
      expect(written.exitCode, written.stderr).not.toBe(0);
      expect(await readFile(file, 'utf8')).toBe('{"deny":["Read(./secret.txt)"]}');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('keeps a masked path under its mask: the folders above it cannot be renamed or removed', async (context) => {
    const expectMasked = await plantMaskedKey(setup.workspace);
    const host = makeHost({ sandbox: 'auto', scope: 'workspace-write', protectedPaths: ['config/prod/key.json'] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    await expectMasked(host);
  });

  it('drops every capability when the host runs as root, so a command cannot unmount a mask', async (context) => {
    const ws = path.join(setup.base, 'ws-root');
    await mkdir(path.join(ws, 'secrets'), { recursive: true });
    await writeFile(path.join(ws, '.env'), 'ENV-SECRET\n');
    await writeFile(path.join(ws, 'secrets', 'k'), 'DIR-SECRET\n');
    const host = makeHost({ workspace: ws, sandbox: 'auto', scope: 'workspace-write', protectedPaths: ['.env', 'secrets'] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    if (process.getuid?.() !== 0) {
      context.skip('the host does not run as root: bwrap already drops every capability for an unprivileged caller');
      return;
    }
    const caps = await host.process.spawn('grep', ['^Cap', '/proc/self/status'], {}, {});
    for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(caps.stdout).toMatch(new RegExp(`^${set}:\\s+0+$`, 'm'));
    const attacks = [
      'umount .env; cat .env',
      'umount -l .env; cat .env',
      'umount secrets; cat secrets/k',
      `umount -l ${ws}; cat .env secrets/k`,
      // A fresh user namespace gives back capabilities, over mounts it inherits locked.
      'unshare -rm sh -c "umount -l .env; umount -l secrets; cat .env secrets/k"',
      'mount --bind /proc/1/root/ /mnt; cat /mnt' + path.join(ws, '.env'),
    ];
    for (const attack of attacks) {
      const result = await host.process.spawn('sh', ['-c', attack], {}, {});
      expect(result.sandbox).toBe('bwrap');
      expect(result.stdout + result.stderr, attack).not.toMatch(/ENV-SECRET|DIR-SECRET/);
    }
    expect(await readFile(path.join(ws, '.env'), 'utf8')).toBe('ENV-SECRET\n');
  });

  it('masks every file the protected list matches, found at each spawn: a recursive read, an archive or a copy of the workspace reads them empty', async (context) => {
    const ws = path.join(setup.base, 'ws-globs');
    await mkdir(path.join(ws, 'config', 'nested'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: ws });
    await writeFile(path.join(ws, '.env'), 'GLOB-SECRET-ENV\n');
    await writeFile(path.join(ws, 'config', 'nested', '.env.production'), 'GLOB-SECRET-NESTED\n');
    await writeFile(path.join(ws, '.ENV'), 'GLOB-SECRET-UPPER\n');
    await writeFile(path.join(ws, 'config', 'id_ed25519'), 'GLOB-SECRET-KEY\n');
    await mkdir(path.join(ws, 'line\nbreak'));
    await writeFile(path.join(ws, 'line\nbreak', '.env'), 'GLOB-SECRET-LINE-BREAK\n');
    await writeFile(path.join(ws, 'notes.md'), 'ordinary\n');
    await link(path.join(ws, '.env'), path.join(ws, 'config', 'backup.txt'));
    const host = makeHost({ workspace: ws, sandbox: 'auto', scope: 'workspace-write' });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    // Created after the host started.
    await writeFile(path.join(ws, 'config', '.env.late'), 'GLOB-SECRET-LATE\n');
    for (const [command, args, cwd] of [
      ['grep', ['-r', 'GLOB-SECRET', '.'], undefined],
      ['grep', ['-r', 'GLOB-SECRET', '.'], 'config'],
      ['tar', ['-cf', '-', '.'], undefined],
      ['sh', ['-c', 'cp -r . /tmp/copy && cat /tmp/copy/.env /tmp/copy/config/backup.txt; find /tmp/copy -type f -exec cat {} +'], undefined],
      ['git', ['grep', '--no-index', 'GLOB-SECRET'], undefined],
    ] as const) {
      const result = await host.process.spawn(command, args, {}, cwd === undefined ? {} : { cwd });
      expect(result.sandbox).toBe('bwrap');
      expect(result.stdout + result.stderr, `${command} ${args.join(' ')}`).not.toContain('GLOB-SECRET');
    }
    // git still works: the repository internals are not masked, and the ordinary file reads as it is.
    const status = await host.process.spawn('git', ['status', '--porcelain'], {}, {});
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toContain('notes.md');
    expect((await host.process.spawn('cat', ['notes.md'], {}, {})).stdout).toBe('ordinary\n');
    expect(await readFile(path.join(ws, '.env'), 'utf8')).toBe('GLOB-SECRET-ENV\n');
  });

  it("masks the credential stores of the host user's home: a recursive read of the home folder reads none of them", async (context) => {
    // Not under /tmp: the sandbox gives children a private one, so a home there would hide itself.
    const home = await mkdtemp(path.join(homedir(), '.toolgate-test-home-'));
    try {
      await mkdir(path.join(home, '.ssh'));
      await writeFile(path.join(home, '.ssh', 'id_ed25519'), 'HOME-SECRET-SSH\n');
      await mkdir(path.join(home, '.config', 'gh'), { recursive: true });
      await writeFile(path.join(home, '.config', 'gh', 'hosts.yml'), 'oauth_token: HOME-SECRET-GH\n');
      await writeFile(path.join(home, '.netrc'), 'machine x password HOME-SECRET-NETRC\n');
      await writeFile(path.join(home, 'notes.txt'), 'HOME-VISIBLE\n');
      const host = makeHost({ sandbox: 'auto', home });
      if ((await host.sandboxStatus()) !== 'bwrap') {
        context.skip('bwrap is not installed or cannot create namespaces in this environment');
        return;
      }
      const result = await host.process.spawn('grep', ['-r', 'HOME-', home], {}, {});
      expect(result.stdout).toContain('HOME-VISIBLE');
      expect(result.stdout + result.stderr).not.toContain('HOME-SECRET');
      // Without the sandbox the same read finds them: the mask is what holds.
      expect((await makeHost({ sandbox: 'off', home }).process.spawn('grep', ['-r', 'HOME-SECRET', home], {}, {})).stdout).toContain('HOME-SECRET-SSH');
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('leaves a committed template the policy lets be read visible, so git sees it unchanged, while a hard link to .env under a readable name stays masked', async (context) => {
    const ws = path.join(setup.base, 'ws-readable');
    await mkdir(ws, { recursive: true });
    await writeFile(path.join(ws, '.env.example'), 'API_KEY=<your key>\n');
    await writeFile(path.join(ws, '.env'), 'READABLE-TEST-SECRET\n');
    await link(path.join(ws, '.env'), path.join(ws, '.env.sample'));
    execFileSync('git', ['init', '-q'], { cwd: ws });
    execFileSync('git', ['add', '.env.example'], { cwd: ws });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'template'], { cwd: ws });
    const host = makeHost({ workspace: ws, sandbox: 'auto', readableProtectedPaths: ['.env.example', '.env.sample'] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    expect((await host.process.spawn('cat', ['.env.example'], {}, {})).stdout).toBe('API_KEY=<your key>\n');
    const status = await host.process.spawn('git', ['status', '--porcelain', '--', '.env.example'], {}, {});
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toBe('');
    const leak = await host.process.spawn('grep', ['-r', 'READABLE-TEST-SECRET', '.'], {}, {});
    expect(leak.stdout + leak.stderr).not.toContain('READABLE-TEST-SECRET');
    // Without the exemption the same template reads as empty.
    expect((await makeHost({ workspace: ws, sandbox: 'auto' }).process.spawn('cat', ['.env.example'], {}, {})).stdout).toBe('');
  });

  it('refuses a command, typed, rather than run it unmasked when the workspace is larger than the walk may look through', async (context) => {
    const ws = path.join(setup.base, 'ws-large');
    await mkdir(ws, { recursive: true });
    for (const name of ['a', 'b', 'c', '.env']) await writeFile(path.join(ws, name), 'LARGE-SECRET\n');
    const host = makeHost({ workspace: ws, sandbox: 'auto', maskWalkLimit: { entries: 3 } });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    const error = await host.process.spawn('cat', ['a', '.env'], {}, {}).catch((caught: unknown) => caught);
    expect(ToolgateError.isInstance(error) && error.code).toBe('TOOL_UNAVAILABLE');
    expect(String((error as Error).message)).toContain('protected files to mask');
    // Without the sandbox nothing is masked, and nothing is walked.
    expect((await makeHost({ workspace: ws, sandbox: 'off', maskWalkLimit: { entries: 3 } }).process.spawn('cat', ['.env'], {}, {})).stdout).toBe('LARGE-SECRET\n');
  });

  it('refuses a command, typed, rather than run it unmasked when a folder name is not UTF-8 (no path string could mask what it holds)', async (context) => {
    const ws = path.join(setup.base, 'ws-bytes');
    const folder = Buffer.concat([Buffer.from(`${ws}/d`), Buffer.from([0xff])]);
    mkdirSync(folder, { recursive: true });
    writeFileSync(Buffer.concat([folder, Buffer.from('/.env')]), 'BYTES-SECRET\n');
    const host = makeHost({ workspace: ws, sandbox: 'auto' });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    const error = await host.process.spawn('grep', ['-r', 'BYTES-SECRET', '.'], {}, {}).catch((caught: unknown) => caught);
    expect(ToolgateError.isInstance(error) && error.code).toBe('TOOL_UNAVAILABLE');
    expect(String((error as Error).message)).toContain('not valid UTF-8');
  });

  it("refuses a command, typed and naming no path, when the repository's hooks folder cannot be made to hold it read-only", async (context) => {
    const ws = path.join(setup.base, 'ws-immutable-git');
    await mkdir(path.join(ws, '.git'), { recursive: true });
    await writeFile(path.join(ws, 'notes.md'), 'ordinary\n');
    const host = makeHost({ workspace: ws, sandbox: 'auto', scope: 'workspace-write' });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    // An immutable folder refuses even root the hooks folder the guard makes: a .git the user cannot write stands in for it.
    try {
      execFileSync('chattr', ['+i', path.join(ws, '.git')], { stdio: 'ignore' });
    } catch {
      context.skip('chattr +i is not available on this file system');
      return;
    }
    try {
      const error = await host.process.spawn('cat', ['notes.md'], {}, {}).catch((caught: unknown) => caught);
      expect(ToolgateError.isInstance(error) && error.code).toBe('TOOL_UNAVAILABLE');
      expect(String((error as Error).message)).toContain("repository's hooks and configuration");
      expect(String((error as Error).message)).not.toContain(ws);
      // Read-only, the workspace holds nothing a command could plant there, and the command runs.
      expect((await makeHost({ workspace: ws, sandbox: 'auto', scope: 'read-only' }).process.spawn('cat', ['notes.md'], {}, {})).stdout).toBe('ordinary\n');
    } finally {
      execFileSync('chattr', ['-i', path.join(ws, '.git')]);
    }
  });

  it('never creates a mount point for a protected path that does not exist', async (context) => {
    const ws = path.join(setup.base, 'ws-missing');
    await mkdir(ws, { recursive: true });
    const host = makeHost({ workspace: ws, sandbox: 'auto', scope: 'workspace-write', protectedPaths: ['secrets', '.env', 'config/key.json'] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    expect((await host.process.spawn('true', [], {}, {})).exitCode).toBe(0);
    expect(await readdir(ws)).toEqual([]);
    // So the user (or a tool) can still create them, as folders.
    await mkdir(path.join(ws, 'secrets'));
    await mkdir(path.join(ws, 'config'));
  });

  it('masks a protected path as what it is at each spawn, not at start-up', async (context) => {
    const ws = path.join(setup.base, 'ws-late');
    await mkdir(ws, { recursive: true });
    const host = makeHost({ workspace: ws, sandbox: 'auto', scope: 'workspace-write', protectedPaths: ['secrets', '.env', 'config/key.json'] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    // Missing when the host starts, created afterwards, as a folder and as files.
    await mkdir(path.join(ws, 'secrets'));
    await writeFile(path.join(ws, 'secrets', 'k'), 'LATE-DIR-SECRET');
    await writeFile(path.join(ws, '.env'), 'LATE-FILE-SECRET');
    await mkdir(path.join(ws, 'config'));
    await writeFile(path.join(ws, 'config', 'key.json'), 'LATE-KEY-SECRET');
    // Commands still start, and cannot read them.
    const probe = await host.process.spawn('sh', ['-c', 'ls -A secrets; cat secrets/k .env config/key.json'], {}, {});
    expect(probe.stderr).not.toMatch(/bwrap/);
    expect(probe.stdout + probe.stderr).not.toMatch(/LATE-/);
    expect((await host.process.spawn('true', [], {}, {})).exitCode).toBe(0);
    // A file that becomes a folder is masked as a folder from the next spawn on.
    await rm(path.join(ws, '.env'));
    await mkdir(path.join(ws, '.env'));
    await writeFile(path.join(ws, '.env', 'inner'), 'LATE-INNER-SECRET');
    const changed = await host.process.spawn('sh', ['-c', 'ls -A .env; cat .env/inner'], {}, {});
    expect(changed.stderr).not.toMatch(/bwrap/);
    expect(changed.stdout + changed.stderr).not.toMatch(/LATE-/);
    expect(await readFile(path.join(ws, 'secrets', 'k'), 'utf8')).toBe('LATE-DIR-SECRET');
  });

  it('moves aside a protected path a command made where there was none, and says so: no later command or agent finds it there', async (context) => {
    const ws = path.join(setup.base, 'ws-create');
    await mkdir(ws, { recursive: true });
    const host = makeHost({ workspace: ws, sandbox: 'auto', scope: 'workspace-write', protectedPaths: ['secrets'] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    const created = await host.process.spawn('sh', ['-c', 'mkdir secrets && echo own-bytes > secrets/f'], {}, {});
    expect(created.exitCode).toBe(0);
    expect(created.movedProtectedPaths).toEqual([{ from: 'secrets', to: 'secrets-held-by-toolgate' }]);
    expect(await readFile(path.join(ws, 'secrets-held-by-toolgate', 'f'), 'utf8')).toBe('own-bytes\n');
    const read = await host.fs.readFile('secrets/f').catch((caught: unknown) => caught);
    expect((read as ToolPolicyError).reason).toBe('protected_path');
    const later = await host.process.spawn('cat', ['secrets/f'], {}, {});
    expect(later.exitCode).not.toBe(0);
    expect(later.movedProtectedPaths).toBeUndefined();
  });
});
