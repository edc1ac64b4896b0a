import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, makeWorkspace, serveWorkspace } from './support/serve-gateway.js';
import { ROOT } from './fixtures/mcp/helpers.js';
import { CLI, startCli } from './support/spawn-cli.js';
import { USER, userFolders, userReachesCli } from './support/unprivileged-user.js';

// The gateway as most people run it: as their own user. The sandbox masks every home's credential stores, root's
// among them, and `/root` is a folder such a user may not enter: bwrap could make no mount point there
// ("Can't create file at /root/.ssh"), and in `full` the walk above the masks threw on `/root/.config`. Every
// sandboxed command failed, in every tier.

const REFERENCE = join(ROOT, 'test/fixtures/mcp/reference-servers.mjs');
const userFolder = userFolders();

const opened = closeAfterEach();

describe.skipIf(!userReachesCli()).each(['read-only', 'workspace-write', 'full'])('a gateway run by a user, not root, in %s', (scope) => {
  it('runs a command in the sandbox, with root’s stores out of its reach and unmasked', async () => {
    const policy = { allowedCommandGlobs: ['node *', 'ls *'], allow: ['Bash(node *)', 'Bash(ls *)'] };
    const workspace = makeWorkspace({ scope, mode: 'auto', policy }, { 'hello.js': "console.log('hello ' + process.getuid())\n" }, userFolder('toolgate-user-ws-'));
    execFileSync('chown', ['-R', `${USER.uid}:${USER.gid}`, workspace]);
    const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: userFolder('toolgate-user-home-') }, user: USER }));
    const { client } = await connectClient(gateway.mcpUrl, 'user', undefined, gateway.auth);
    opened.client(client);

    const ran = await client.callTool({ name: 'run_command', arguments: { command: ['node', 'hello.js'] } });
    expect(ran.structuredContent, JSON.stringify(ran)).toMatchObject({ exitCode: 0, stdout: 'hello 65534\n', sandbox: 'bwrap' });
    // Root's home stays what it is to this user: a folder it may not list, in the sandbox as out of it.
    const listed = await client.callTool({ name: 'run_command', arguments: { command: ['ls', '/root'] } });
    expect(listed.structuredContent, JSON.stringify(listed)).toMatchObject({ exitCode: 2, sandbox: 'bwrap' });
    expect(JSON.stringify(listed.structuredContent)).toContain('Permission denied');
  });
});

describe.skipIf(!userReachesCli())('a gateway run by a user, not root, in full', () => {
  it('answers a path it may not open with a typed refusal, and lists a folder past a subfolder it may not open', async () => {
    const policy = { allow: ['Read(**)', 'Read(/**)', 'Write(**)', 'Write(/**)', 'mcp__git__git_status'] };
    const workspace = makeWorkspace({ scope: 'full', mode: 'auto', policy, servers: { git: { command: process.execPath, args: [REFERENCE, 'mcp-server-git'] } } }, { 'notes.md': 'a\n' }, userFolder('toolgate-user-ws-'));
    execFileSync('chown', ['-R', `${USER.uid}:${USER.gid}`, workspace]);
    // Left by root in the workspace (a container's build cache), as the user may neither open nor write.
    mkdirSync(join(workspace, 'cache'), { mode: 0o700 });
    writeFileSync(join(workspace, 'cache', 'entry'), 'cached\n');
    writeFileSync(join(workspace, 'locked.txt'), 'locked\n', { mode: 0o600 });
    const gateway = opened.gateway(await serveWorkspace(workspace, { env: { HOME: userFolder('toolgate-user-home-') }, user: USER }));
    const { client } = await connectClient(gateway.mcpUrl, 'user', undefined, gateway.auth);
    opened.client(client);

    const listed = await client.callTool({ name: 'list_directory', arguments: { path: '.', depth: 2 } });
    expect(listed.structuredContent, JSON.stringify(listed)).toEqual({ entries: expect.arrayContaining([{ path: 'cache', kind: 'directory' }, { path: 'notes.md', kind: 'file', bytes: 2 }]) });
    for (const [name, args] of [
      ['list_directory', { path: '/root' }],
      ['list_directory', { path: 'cache' }],
      ['read_file', { path: 'locked.txt' }],
      ['write_file', { path: 'cache/new.txt', content: 'x' }],
      ['write_file', { path: '/etc/toolgate-unprivileged', content: 'x' }],
      // The recognised git server's check reads the repository it would open: there is none it may read.
      ['mcp_git_git_status', { repo_path: 'cache' }],
    ] as const) {
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError, JSON.stringify(refused)).toBe(true);
      // A refusal, typed: never the failure of a host that broke.
      expect(JSON.stringify(refused.content), `${name} ${JSON.stringify(args)}`).toContain('was refused');
    }
  });
});

describe.skipIf(!userReachesCli())('a gateway run by a user whose HOME it may not write (a service user’s /nonexistent)', () => {
  it('refuses to start over HTTP with a configuration error that names the fix', async () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto' }, {}, userFolder('toolgate-user-ws-'));
    execFileSync('chown', ['-R', `${USER.uid}:${USER.gid}`, workspace]);
    const cli = startCli(['--json', 'serve', '--http', '0'], workspace, { HOME: '/nonexistent' }, [], USER);
    const exited = new Promise<number | null>((resolve) => cli.child.once('exit', resolve));
    expect(await cli.ready).toMatchObject({ ok: false, error: { kind: 'config', message: expect.stringContaining('HOME') } });
    expect(await exited).toBe(2);
  });
});

describe.skipIf(!makesMountNamespace())('a gateway whose HOME is on a file system mounted read-only', () => {
  /** Run the CLI in a mount namespace of this test's own, where `home` is a read-only bind of itself: a write there fails EROFS. */
  function runWithReadOnlyHome(workspace: string, home: string, args: readonly string[]): { document: unknown; status: number | null; stderr: string } {
    const script = ['set -e', `mount --bind ${home} ${home}`, `mount -o remount,ro,bind ${home}`, 'exec "$@"'].join('\n');
    const run = spawnSync('unshare', ['-m', '--propagation', 'private', '--', 'sh', '-c', script, 'sh', process.execPath, CLI, '--json', ...args], {
      cwd: workspace,
      encoding: 'utf8',
      env: { ...process.env, HOME: home },
      timeout: 30_000,
    });
    return { document: JSON.parse(run.stdout) as unknown, status: run.status, stderr: run.stderr };
  }

  it('refuses to start over HTTP with the same configuration error, not an internal one', () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto' }, {}, userFolder('toolgate-erofs-ws-'));
    const run = runWithReadOnlyHome(workspace, userFolder('toolgate-erofs-home-'), ['serve', '--http', '0']);
    expect(run.document, run.stderr).toMatchObject({ ok: false, error: { kind: 'config', message: expect.stringContaining('HOME') } });
    expect(run.status).toBe(2);
  });

  it('with a signed journal, refuses to make a signing key it could not record, with a configuration error', () => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', journal: { sign: true } }, { 'notes.md': 'hello\n' }, userFolder('toolgate-erofs-ws-'));
    const run = runWithReadOnlyHome(workspace, userFolder('toolgate-erofs-home-'), ['call', 'read_file', '{"path":"notes.md"}']);
    expect(run.document, run.stderr).toMatchObject({ ok: false, error: { kind: 'config', message: expect.stringContaining('set HOME') } });
    expect(run.status).toBe(2);
  });
});

/** Whether this test may make a mount namespace of its own, where a /home of its own making stands in for the machine's. */
function makesMountNamespace(): boolean {
  try {
    execFileSync('unshare', ['-m', '--propagation', 'private', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!userReachesCli() || !makesMountNamespace())('a gateway run by a user, on a machine whose /home it may pass but not list (mode 0711)', () => {
  it('masks the stores of the homes the system’s users have there: a grep -r of one read its token', () => {
    const policy = { allowedCommandGlobs: ['grep *'], allow: ['Bash(grep *)'] };
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', policy }, {}, userFolder('toolgate-user-ws-'));
    execFileSync('chown', ['-R', `${USER.uid}:${USER.gid}`, workspace]);
    const passwd = join(userFolder('toolgate-user-passwd-'), 'passwd');
    // In a mount namespace of this test's own: a /home of mode 0711 holding bob's home, whom a copy of /etc/passwd names.
    const script = [
      'set -e',
      'mount -t tmpfs -o mode=711 tmpfs /home',
      'mkdir -m 755 /home/bob',
      "echo '//registry.example/:_authToken=NPM-TOKEN-0123' > /home/bob/.npmrc",
      `{ cat /etc/passwd; echo 'bob:x:4242:4242::/home/bob:/bin/sh'; } > ${passwd}`,
      `mount --bind ${passwd} /etc/passwd`,
      `exec setpriv --reuid=${USER.uid} --regid=${USER.gid} --clear-groups "$@"`,
    ].join('\n');
    const argv = [process.execPath, CLI, '--json', 'call', 'run_command', JSON.stringify({ command: ['grep', '-r', 'NPM-TOKEN', '/home/bob'] })];
    const run = spawnSync('unshare', ['-m', '--propagation', 'private', '--', 'sh', '-c', script, 'sh', ...argv], {
      cwd: workspace,
      encoding: 'utf8',
      env: { ...process.env, HOME: userFolder('toolgate-user-home-') },
    });
    expect(JSON.parse(run.stdout), run.stderr).toMatchObject({ ok: true, value: { sandbox: 'bwrap' } });
    expect(run.stdout).not.toContain('NPM-TOKEN-0123');
  });
});
