import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FsScope } from '../node-host-types.js';
import { nodeDial, pythonDial, startHostSockets, type HostSockets } from './__fixtures__/host-sockets.js';
import { useProcessWorkspace } from './__fixtures__/process-workspace.js';

/**
 * The host's services behind Unix sockets (the session bus, whose systemd
 * starts units outside any sandbox; docker; the gpg and ssh agents): a
 * sandboxed command reaches none of them, wherever the socket lies and in
 * every tier, because it cannot create a Unix socket to connect with.
 */
const setup = useProcessWorkspace();
let home = '';
let host: HostSockets;

beforeAll(async () => {
  home = await mkdtemp('/var/tmp/toolgate-sockets-home-');
  host = await startHostSockets(home);
});

afterAll(async () => {
  await host.close();
  await rm(home, { recursive: true, force: true });
});

const paths = (): string[] => host.sockets.map((socket) => socket.path);

describe('process: Unix sockets of the host', () => {
  it('answer an unsandboxed command, so the fixture stands for a real service', async () => {
    const result = await setup.makeHost({ sandbox: 'off', home }).process.spawn('node', nodeDial(paths()), {}, {});
    for (const socket of host.sockets) expect(result.stdout).toContain(socket.secret);
  });

  it.for<FsScope>(['read-only', 'workspace-write', 'full'])('in %s, answer no sandboxed command, whatever the language', async (scope, context) => {
    const sandboxed = setup.makeHost({ sandbox: 'auto', scope, home });
    if ((await sandboxed.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    for (const [program, args] of [['node', nodeDial(paths())], ['python3', pythonDial(paths())]] as const) {
      const result = await sandboxed.process.spawn(program, args, {}, {});
      expect(result.sandbox).toBe('bwrap');
      for (const socket of host.sockets) expect(result.stdout + result.stderr, `${program} ${socket.path}`).not.toContain(socket.secret);
    }
  });

  it("are out of sight in the users' runtime folder, whose files beside them stay unread, unless it holds the workspace", async (context) => {
    const runtime = host.runtime;
    if (runtime === undefined) return context.skip('this user cannot create a runtime folder here');
    const sandboxed = setup.makeHost({ sandbox: 'auto', scope: 'full', home });
    if ((await sandboxed.sandboxStatus()) !== 'bwrap') return context.skip('bwrap is not installed or cannot create namespaces in this environment');
    await mkdir(path.join(runtime, 'containers'), { recursive: true });
    await writeFile(path.join(runtime, 'containers', 'auth.json'), 'REGISTRY-TOKEN');
    const listed = await sandboxed.process.spawn('sh', ['-c', `ls -A ${path.dirname(runtime)}; cat ${path.join(runtime, 'containers', 'auth.json')}`], {}, {});
    expect(listed.stdout).not.toContain('toolgate-sockets-');
    expect(listed.stdout).not.toContain('REGISTRY-TOKEN');
    // A workspace in the runtime folder still sees itself.
    const inside = path.join(runtime, 'ws');
    await mkdir(inside, { recursive: true });
    await writeFile(path.join(inside, 'notes.md'), 'RUNTIME-WORKSPACE');
    const own = setup.makeHost({ workspace: inside, sandbox: 'auto', scope: 'workspace-write', home });
    expect((await own.process.spawn('cat', ['notes.md'], {}, {})).stdout).toBe('RUNTIME-WORKSPACE');
  });

  it('refuse the socket itself, EACCES, while socketpair and pipes keep working', async (context) => {
    const sandboxed = setup.makeHost({ sandbox: 'auto', scope: 'workspace-write', home });
    if ((await sandboxed.sandboxStatus()) !== 'bwrap') {
      context.skip('bwrap is not installed or cannot create namespaces in this environment');
      return;
    }
    const script = [
      'import errno, socket',
      'try:',
      '    socket.socket(socket.AF_UNIX)',
      '    print("created")',
      'except OSError as e:',
      '    print(errno.errorcode[e.errno])',
      'a, b = socket.socketpair()',
      'a.sendall(b"pair"); print(b.recv(4).decode())',
    ].join('\n');
    const result = await sandboxed.process.spawn('python3', ['-c', script], {}, {});
    expect(result.stdout).toBe('EACCES\npair\n');
    const pipeline = await sandboxed.process.spawn('sh', ['-c', 'printf "a\\nb\\n" | grep b | wc -l'], {}, {});
    expect(pipeline.stdout.trim()).toBe('1');
    expect(path.isAbsolute(setup.workspace)).toBe(true);
  });
});
