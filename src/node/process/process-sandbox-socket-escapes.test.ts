import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHost } from '../node-host-types.js';
import { startHostSockets, type HostSockets } from './__fixtures__/host-sockets.js';
import { useProcessWorkspace } from './__fixtures__/process-workspace.js';

/**
 * The ways around a filter that refuses `socket(AF_UNIX)`: another
 * system-call table, a socket pair put to other use, io_uring, the
 * descriptors of a process outside. Each runs sandboxed against a host
 * socket that answers with a secret, and where the way works on this kernel
 * an unsandboxed run shows it does.
 */
const setup = useProcessWorkspace();
let home = '';
let host: HostSockets;
let target = '';
let secret = '';

beforeAll(async () => {
  home = await mkdtemp('/var/tmp/toolgate-socket-escapes-home-');
  host = await startHostSockets(home);
  ({ path: target, secret } = host.sockets.at(-1) as { path: string; secret: string });
});

afterAll(async () => {
  await host.close();
  await rm(home, { recursive: true, force: true });
});

/** A socket made through the i386 table (`int 0x80`: `socket`, or `socketcall` with its arguments in low memory) or the x32 range, then connected the ordinary way. */
const OTHER_TABLE = [
  'import ctypes, mmap, socket, struct, sys',
  'path, way = sys.argv[1], sys.argv[2]',
  'if way == "x32":',
  '    fd = ctypes.CDLL(None).syscall(0x40000000 + 41, 1, 1, 0)',
  'else:',
  '    mem = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | 0x40, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)',
  '    base = ctypes.addressof(ctypes.c_char.from_buffer(mem))',
  '    mem[256:268] = struct.pack("<III", 1, 1, 0)',
  '    call = (359, 1, 1) if way == "i386-socket" else (102, 1, base + 256)',
  '    code = b"\\x53\\xb8" + struct.pack("<I", call[0]) + b"\\xbb" + struct.pack("<I", call[1]) + b"\\xb9" + struct.pack("<I", call[2]) + b"\\x31\\xd2\\xcd\\x80\\x5b\\xc3"',
  '    mem[0:len(code)] = code',
  '    fd = ctypes.CFUNCTYPE(ctypes.c_int)(base)()',
  'print(way, "fd", fd, flush=True)',
  'if fd >= 0:',
  '    s = socket.socket(fileno=fd); s.connect(path); s.sendall(b"ask"); print(s.recv(100).decode())',
].join('\n');

/** A datagram pair sending to a datagram socket on the filesystem, and a stream pair asked to connect elsewhere. */
const PAIRS = [
  'import socket, sys',
  'try:',
  '    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b"DGRAM-ESCAPE", sys.argv[1]); print("dgram sent")',
  'except OSError as e:',
  '    print("dgram", e.errno)',
  'a, b = socket.socketpair()',
  'try:',
  '    a.connect(sys.argv[2]); a.sendall(b"ask"); print(a.recv(100).decode())',
  'except OSError as e:',
  '    print("stream", e.errno)',
].join('\n');

const IO_URING = ['import ctypes, errno', 'libc = ctypes.CDLL(None, use_errno=True)', 'fd = libc.syscall(425, 4, ctypes.create_string_buffer(120))', 'print("io_uring", fd if fd >= 0 else errno.errorcode[ctypes.get_errno()])'].join('\n');

async function sandboxedHost(): Promise<NodeHost | undefined> {
  const sandboxed = setup.makeHost({ sandbox: 'auto', scope: 'full', home });
  return (await sandboxed.sandboxStatus()) === 'bwrap' ? sandboxed : undefined;
}

/** A datagram server on the host at `file`, collecting what it receives. */
async function datagramServer(file: string): Promise<{ received: () => string; stop: () => void }> {
  const child = spawn('python3', ['-c', 'import socket, sys\ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); print("ready", flush=True)\nwhile True: print(s.recv(100).decode(), flush=True)', file]);
  let out = '';
  await new Promise<void>((resolve) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.startsWith('ready')) resolve();
    });
  });
  return { received: () => out, stop: () => child.kill() };
}

describe('process: ways around the socket filter', () => {
  it('another system-call table: int 0x80 (socket, socketcall) is killed and the x32 range refused', async (context) => {
    const sandboxed = await sandboxedHost();
    if (sandboxed === undefined) return context.skip('bwrap is not installed or cannot create namespaces in this environment');
    if (process.arch !== 'x64') return context.skip('the i386 and x32 tables are those of x86_64');
    const plain = setup.makeHost({ sandbox: 'off', home });
    for (const way of ['i386-socket', 'i386-socketcall', 'x32']) {
      const control = await plain.process.spawn('python3', ['-c', OTHER_TABLE, target, way], {}, {});
      const result = await sandboxed.process.spawn('python3', ['-c', OTHER_TABLE, target, way], {}, {});
      expect(result.stdout + result.stderr, way).not.toContain(secret);
      // Where the kernel runs that table, the same program outside reads the secret; inside it dies at the call.
      if (control.stdout.includes(secret)) expect(result.signal ?? result.exitCode, way).not.toBe(0);
      if (way === 'x32') expect(result.stdout).toBe('x32 fd -1\n');
    }
  });

  it('a datagram pair is refused (it could send anywhere), and a stream pair cannot be connected elsewhere', async (context) => {
    const sandboxed = await sandboxedHost();
    if (sandboxed === undefined) return context.skip('bwrap is not installed or cannot create namespaces in this environment');
    const file = path.join(path.dirname(target), 'journal.sock');
    const server = await datagramServer(file);
    try {
      const control = await setup.makeHost({ sandbox: 'off', home }).process.spawn('python3', ['-c', PAIRS, file, target], {}, {});
      expect(control.stdout).toContain('dgram sent');
      await expect.poll(() => server.received()).toContain('DGRAM-ESCAPE');
      const before = server.received().length;
      const result = await sandboxed.process.spawn('python3', ['-c', PAIRS, file, target], {}, {});
      // EACCES for the datagram pair; EISCONN from the kernel for the stream pair, filter or not.
      expect(result.stdout).toBe('dgram 13\nstream 106\n');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(server.received().length).toBe(before);
    } finally {
      server.stop();
    }
  });

  it('vsock, which no network namespace holds (a virtual machine reaches its host with it), cannot be made; loopback TCP still can', async (context) => {
    const sandboxed = await sandboxedHost();
    if (sandboxed === undefined) return context.skip('bwrap is not installed or cannot create namespaces in this environment');
    const script = 'import socket\nfor family in (socket.AF_VSOCK, socket.AF_INET, socket.AF_INET6):\n    try:\n        socket.socket(family); print("made")\n    except OSError as e:\n        print(e.errno)';
    const control = await setup.makeHost({ sandbox: 'off', home }).process.spawn('python3', ['-c', script], {}, {});
    const result = await sandboxed.process.spawn('python3', ['-c', script], {}, {});
    // Outside, vsock is made where the kernel has it (a virtual machine); inside, never.
    if (existsSync('/dev/vsock')) expect(control.stdout.split('\n')[0]).toBe('made');
    expect(result.stdout).toBe('13\nmade\nmade\n');
    const server = await sandboxed.process.spawn('python3', ['-c', 'import socket\ns = socket.create_server(("127.0.0.1", 0)); c = socket.create_connection(s.getsockname()); print(s.accept()[0].getpeername()[0])'], {}, {});
    expect(server.stdout).toBe('127.0.0.1\n');
  });

  it('io_uring, whose operations never pass through seccomp, is not there', async (context) => {
    const sandboxed = await sandboxedHost();
    if (sandboxed === undefined) return context.skip('bwrap is not installed or cannot create namespaces in this environment');
    expect((await sandboxed.process.spawn('python3', ['-c', IO_URING], {}, {})).stdout).toBe('io_uring ENOSYS\n');
  });

  it("no process outside is in sight, so no other process's socket descriptors either", async (context) => {
    const sandboxed = await sandboxedHost();
    if (sandboxed === undefined) return context.skip('bwrap is not installed or cannot create namespaces in this environment');
    const result = await sandboxed.process.spawn('sh', ['-c', `ls /proc/${String(process.pid)}/fd; ls /proc`], {}, {});
    expect(result.stderr).toContain('No such file or directory');
    const pids = result.stdout.split('\n').filter((entry) => /^\d+$/.test(entry));
    expect(pids.length).toBeLessThanOrEqual(4);
    expect(pids).not.toContain(String(process.pid));
  });
});
