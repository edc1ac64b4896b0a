import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolgateError, ToolPolicyError } from '../../core/index.js';
import { createNodeHost } from '../create-node-host.js';
import type { NodeHost, NodeHostOptions } from '../node-host-types.js';

let base: string;
let workspace: string;
let outside: string;
const hosts: NodeHost[] = [];

function makeHost(options: Partial<NodeHostOptions> = {}): NodeHost {
  const host = createNodeHost({ workspace, spillDir: path.join(base, `spill-${hosts.length}`), sandbox: 'off', ...options });
  hosts.push(host);
  return host;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie waiting for its reaper has exited: it is not an orphan still running.
  return !/^State:\s+Z/m.test(execFileSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }));
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-proc-'));
  workspace = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(workspace);
  await mkdir(outside);
});

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await rm(base, { recursive: true, force: true });
});

describe('process: spawning', () => {
  it('never passes the parent environment; only allowed declared variables get through', async () => {
    process.env.TOOLGATE_PARENT_SECRET = 'sk-parent-secret-value';
    try {
      const host = makeHost({ env: { allow: ['GREETING'], set: { FIXED: 'yes' } } });
      const result = await host.process.spawn('env', [], { GREETING: 'hello' }, {});
      expect(result.stdout).not.toContain('sk-parent-secret-value');
      expect(result.stdout).toContain('GREETING=hello');
      expect(result.stdout).toContain('FIXED=yes');
      expect(result.stdout).toContain('GIT_TERMINAL_PROMPT=0');
      const names = result.stdout.trim().split('\n').map((line) => line.split('=')[0]).sort();
      expect(names).toEqual(expect.arrayContaining(['HOME', 'LANG', 'PATH', 'TERM']));
      expect(names).not.toContain('TOOLGATE_PARENT_SECRET');
      const refused = await host.process.spawn('env', [], { TOOLGATE_PARENT_SECRET: 'x' }, {}).catch((error: unknown) => error);
      expect((refused as ToolPolicyError).reason).toBe('env_not_allowed');
      const reserved = await host.process.spawn('env', [], { LD_PRELOAD: '/tmp/x.so' }, {}).catch((error: unknown) => error);
      expect((reserved as ToolPolicyError).reason).toBe('env_not_allowed');
    } finally {
      delete process.env.TOOLGATE_PARENT_SECRET;
    }
  });

  it('runs without a shell: metacharacters are plain arguments', async () => {
    const host = makeHost();
    const result = await host.process.spawn('echo', ['hi;', 'touch', 'pwned', '$(id)', '|', 'cat'], {}, {});
    expect(result.stdout).toBe('hi; touch pwned $(id) | cat\n');
    expect(await exists(path.join(workspace, 'pwned'))).toBe(false);
  });

  it('never runs ./git or any program from the workspace', async () => {
    const marker = path.join(base, 'fake-git-ran');
    const fake = path.join(workspace, 'git');
    await writeFile(fake, `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(fake, 0o755);
    await mkdir(path.join(workspace, 'node_modules/.bin'), { recursive: true });
    await symlink(fake, path.join(workspace, 'node_modules/.bin/tool'));
    const host = makeHost();
    for (const command of ['./git', fake, 'node_modules/.bin/tool', 'tool', '../ws/git']) {
      const error = await host.process.spawn(command, ['--version'], {}, {}).catch((caught: unknown) => caught);
      expect((error as ToolPolicyError).reason, command).toBe('executable_not_found');
    }
    const real = await host.process.spawn('git', ['--version'], {}, {});
    expect(real.stdout).toMatch(/^git version/);
    expect(await exists(marker)).toBe(false);
  });

  it('jails the working directory', async () => {
    const host = makeHost();
    await mkdir(path.join(workspace, 'sub'), { recursive: true });
    expect((await host.process.spawn('pwd', [], {}, { cwd: 'sub' })).stdout.trim()).toBe(path.join(host.workspace, 'sub'));
    const escaped = await host.process.spawn('pwd', [], {}, { cwd: '../outside' }).catch((error: unknown) => error);
    expect((escaped as ToolPolicyError).reason).toBe('scope_denied');
    await symlink(outside, path.join(workspace, 'out-link'));
    const linked = await host.process.spawn('pwd', [], {}, { cwd: 'out-link' }).catch((error: unknown) => error);
    expect((linked as ToolPolicyError).reason).toBe('symlink_refused');
  });

  it('caps output and reports truncation', async () => {
    const host = makeHost();
    const result = await host.process.spawn('yes', [], {}, { maxOutputBytes: 1000, timeoutMs: 10_000 });
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(1000);
    expect(result.timedOut).toBe(false);
  });

  it('kills the whole process group on timeout, leaving no orphan', async () => {
    const host = createNodeHost({ workspace, spillDir: path.join(base, 'spill-kill'), sandbox: 'off' });
    hosts.push(host);
    const result = await host.process.spawn('sh', ['-c', 'sleep 30 & echo $!; sleep 30'], {}, { timeoutMs: 300 });
    expect(result.timedOut).toBe(true);
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(alive(grandchild)).toBe(false);
  });

  it('refuses entry when cancelled during executable resolution, and kills on a later abort', async () => {
    const host = makeHost();
    const marker = path.join(workspace, 'started');
    const controller = new AbortController();
    const pending = host.process.spawn('touch', [marker], {}, {}, controller.signal);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(await exists(marker)).toBe(false);
    const late = new AbortController();
    const running = host.process.spawn('sleep', ['30'], {}, {}, late.signal);
    setTimeout(() => late.abort(), 100);
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
  });
});

/**
 * A git repository in the workspace and a payload script in it that records
 * each run in `marker` and passes its input through (so a filter that runs
 * it still works).
 */
async function repositoryWithPayload(name: string): Promise<{ repo: string; marker: string; payload: string }> {
  const repo = path.join(workspace, name);
  await mkdir(repo);
  execFileSync('git', ['init', '-q', repo]);
  const marker = path.join(base, `${name}-payload-ran`);
  const payload = path.join(repo, 'payload.sh');
  await writeFile(payload, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`);
  await chmod(payload, 0o755);
  return { repo, marker, payload };
}

describe('process: git hardening', () => {
  it('does not execute a repo-local core.fsmonitor, pager, external diff or hook', async () => {
    const { repo, marker, payload } = await repositoryWithPayload('repo');
    execFileSync('git', ['-C', repo, 'config', 'core.fsmonitor', payload]);
    execFileSync('git', ['-C', repo, 'config', 'core.pager', payload]);
    execFileSync('git', ['-C', repo, 'config', 'diff.external', payload]);
    await mkdir(path.join(repo, '.git/hooks'), { recursive: true });
    await writeFile(path.join(repo, '.git/hooks/pre-commit'), `#!/bin/sh\necho hook >> ${marker}\n`);
    await chmod(path.join(repo, '.git/hooks/pre-commit'), 0o755);
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    const host = makeHost({ env: { set: { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' } } });
    const status = await host.process.spawn('git', ['status', '--porcelain'], {}, { cwd: 'repo' });
    expect(status.stdout).toContain('a.txt');
    await host.process.spawn('git', ['add', 'a.txt'], {}, { cwd: 'repo' });
    const commit = await host.process.spawn('git', ['commit', '-m', 'x'], {}, { cwd: 'repo' });
    expect(commit.exitCode).toBe(0);
    await writeFile(path.join(repo, 'a.txt'), 'two\n');
    const diff = await host.process.spawn('git', ['diff'], {}, { cwd: 'repo' });
    expect(diff.stdout).toContain('+two');
    expect(await readFile(marker, 'utf8').catch(() => '')).toBe('');
  });
});

describe('process: repository-named git drivers', () => {
  const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };

  it('never runs a filter, textconv, diff or merge driver, or a gpg program, that the repository configuration names, even through an include', async () => {
    const { repo, marker, payload } = await repositoryWithPayload('drivers');
    const config = (key: string, value: string): void => void execFileSync('git', ['-C', repo, 'config', key, value]);
    config('filter.Evil.clean', payload);
    config('filter.Evil.process', payload);
    config('filter.Evil.required', 'true');
    config('diff.conv.textconv', payload);
    config('diff.conv.command', payload);
    config('merge.m.driver', payload);
    config('gpg.program', payload);
    config('commit.gpgSign', 'false');
    // A driver defined in a file the repository config includes is the repository's too.
    await writeFile(path.join(repo, '.git', 'more.cfg'), `[filter "Hidden"]\n\tsmudge = ${payload}\n\tclean = ${payload}\n`);
    config('include.path', 'more.cfg');
    await writeFile(path.join(repo, '.gitattributes'), '*.txt filter=Evil diff=conv merge=m\n*.md filter=Hidden\n');
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    await writeFile(path.join(repo, 'b.md'), 'bee\n');
    const host = makeHost({ env: { set: identity } });

    // From the workspace root through -C: the probe reads the same repository the command does.
    const add = await host.process.spawn('git', ['-C', 'drivers', 'add', '.'], {}, {});
    expect(add.exitCode).toBe(0);
    const commit = await host.process.spawn('git', ['commit', '-q', '-m', 'x'], {}, { cwd: 'drivers' });
    expect(commit.exitCode).toBe(0);
    // What was stored is the file itself, not a filter's output.
    const stored = await host.process.spawn('git', ['show', 'HEAD:a.txt'], {}, { cwd: 'drivers' });
    expect(stored.stdout).toBe('one\n');
    await writeFile(path.join(repo, 'a.txt'), 'two\n');
    const diff = await host.process.spawn('git', ['diff'], {}, { cwd: 'drivers' });
    expect(diff.stdout).toContain('+two');
    await rm(path.join(repo, 'b.md'));
    const checkout = await host.process.spawn('git', ['checkout', '--', 'b.md'], {}, { cwd: 'drivers' });
    expect(checkout.exitCode).toBe(0);
    expect(await readFile(path.join(repo, 'b.md'), 'utf8')).toBe('bee\n');
    expect(await readFile(marker, 'utf8').catch(() => '')).toBe('');

    // The control: plain git, without the host, does run the repository's clean filter.
    execFileSync('git', ['-C', repo, 'config', '--unset', 'filter.Evil.process']);
    execFileSync('git', ['-C', repo, 'add', 'a.txt']);
    expect(await readFile(marker, 'utf8')).toContain('payload.sh');
  });

  it('refuses to run git when the repository configuration cannot be read, and adds nothing for other programs', async () => {
    const repo = path.join(workspace, 'broken');
    await mkdir(repo);
    execFileSync('git', ['init', '-q', repo]);
    await writeFile(path.join(repo, '.git', 'config'), '[core\n\tbroken = = =\n');
    const host = makeHost();
    const refused = await host.process.spawn('git', ['status'], {}, { cwd: 'broken' }).catch((caught: unknown) => caught);
    expect((refused as ToolgateError).code).toBe('TOOL_UNAVAILABLE');
    const env = await host.process.spawn('env', [], {}, {});
    expect(env.stdout).toContain('GIT_CONFIG_COUNT=14');
  });
});

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
    const bin = path.join(base, 'bin-without-bwrap');
    await mkdir(bin, { recursive: true });
    await symlink('/usr/bin/true', path.join(bin, 'true')).catch(() => undefined);
    const required = makeHost({ sandbox: 'required', executablePath: [bin] });
    const error = await required.process.spawn('true', [], {}, {}).catch((caught: unknown) => caught);
    expect(ToolgateError.isInstance(error) && error.code).toBe('TOOL_UNAVAILABLE');
    const auto = makeHost({ sandbox: 'auto', executablePath: [bin] });
    expect((await auto.process.spawn('true', [], {}, {})).sandbox).toBe('none');
  });

  it('blocks network and writes outside the workspace when bwrap can run here', async (context) => {
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
    const outsideFile = path.join(outside, 'escaped');
    const write = await host.process.spawn('touch', [outsideFile], {}, {});
    expect(write.exitCode).not.toBe(0);
    expect(await exists(outsideFile)).toBe(false);
    expect((await host.process.spawn('touch', ['inside.txt'], {}, {})).exitCode).toBe(0);
    expect(await exists(path.join(workspace, 'inside.txt'))).toBe(true);
    const readOnly = makeHost({ sandbox: 'required', scope: 'read-only' });
    expect((await readOnly.process.spawn('touch', ['ro.txt'], {}, {})).exitCode).not.toBe(0);
    expect(await exists(path.join(workspace, 'ro.txt'))).toBe(false);
    const envDump = await host.process.spawn('env', [], {}, {});
    expect(envDump.stdout).not.toContain('TOOLGATE_');
    const killed = await host.process.spawn('sh', ['-c', 'sleep 30 & echo started; sleep 30'], {}, { timeoutMs: 300 });
    expect(killed.timedOut).toBe(true);
  });

  it('masks protected paths that name one place: a sandboxed command cannot read them either', async (context) => {
    await mkdir(path.join(workspace, 'state'), { recursive: true });
    await writeFile(path.join(workspace, 'state', 'token.txt'), 'state-secret');
    await writeFile(path.join(workspace, 'app.config.json'), '{"token":"config-secret"}');
    const host = makeHost({ sandbox: 'auto', scope: 'workspace-write', protectedPaths: ['state', path.join(workspace, 'app.config.json')] });
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
    expect(await readFile(path.join(workspace, 'state', 'token.txt'), 'utf8')).toBe('state-secret');
    const read = await host.fs.readFile('state/token.txt').catch((caught: unknown) => caught);
    expect((read as ToolPolicyError).reason).toBe('protected_path');
  });

  it('keeps a masked path under its mask: the folders above it cannot be renamed or removed', async (context) => {
    await mkdir(path.join(workspace, 'config', 'prod'), { recursive: true });
    await writeFile(path.join(workspace, 'config', 'prod', 'key.json'), 'KEY-SECRET');
    const host = makeHost({ sandbox: 'auto', scope: 'workspace-write', protectedPaths: ['config/prod/key.json'] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    for (const script of ['mv config moved && cat moved/prod/key.json', 'mv config/prod config/p2 && cat config/p2/key.json', 'cp -r config copy; rm -rf config; cat copy/prod/key.json']) {
      const attempt = await host.process.spawn('sh', ['-c', script], {}, {});
      expect(attempt.stdout, script).not.toContain('KEY-SECRET');
    }
    expect(await readFile(path.join(workspace, 'config', 'prod', 'key.json'), 'utf8')).toBe('KEY-SECRET');
    // Everything else in the workspace stays writable.
    expect((await host.process.spawn('sh', ['-c', 'mkdir -p config/other && touch config/other/x && mv config/other config/renamed'], {}, {})).exitCode).toBe(0);
  });

  it('drops every capability when the host runs as root, so a command cannot unmount a mask', async (context) => {
    const ws = path.join(base, 'ws-root');
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

  it('never creates a mount point for a protected path that does not exist', async (context) => {
    const ws = path.join(base, 'ws-missing');
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
    const ws = path.join(base, 'ws-late');
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

  it('lets a command create a protected path that does not exist yet; the file tools still refuse it and later commands see it masked', async (context) => {
    const ws = path.join(base, 'ws-create');
    await mkdir(ws, { recursive: true });
    const host = makeHost({ workspace: ws, sandbox: 'auto', scope: 'workspace-write', protectedPaths: ['secrets'] });
    if ((await host.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    const created = await host.process.spawn('sh', ['-c', 'mkdir secrets && echo own-bytes > secrets/f'], {}, {});
    expect(created.exitCode).toBe(0);
    expect(await readFile(path.join(ws, 'secrets', 'f'), 'utf8')).toBe('own-bytes\n');
    const read = await host.fs.readFile('secrets/f').catch((caught: unknown) => caught);
    expect((read as ToolPolicyError).reason).toBe('protected_path');
    const later = await host.process.spawn('cat', ['secrets/f'], {}, {});
    expect(later.stdout).toBe('');
  });
});
