import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';

/** A host service's Unix socket: where it listens, and the secret it answers every connection with. */
export interface HostSocket {
  readonly path: string;
  readonly secret: string;
}

export interface HostSockets {
  readonly sockets: readonly HostSocket[];
  /** The folder of the sockets' own inside the runtime folder, removed by `close`; none when this user may not create one. */
  readonly runtime: string | undefined;
  close(): Promise<void>;
}

/**
 * Unix-socket servers where a host's services keep theirs, each answering
 * whoever connects and asks (writes anything) with its own secret: the user's runtime folder (the
 * session bus, the agents, a rootless docker), the home (`~/.gnupg`'s agent,
 * Docker Desktop's socket) and a system folder outside the workspace (the
 * docker socket). None is under /tmp: the sandbox gives commands a /tmp of
 * its own. The runtime folder (`$XDG_RUNTIME_DIR`, else `/run/user/<uid>`)
 * is created when missing and left in place; the sockets get a folder of
 * their own inside it, removed by `close`.
 */
export async function startHostSockets(home: string): Promise<HostSockets> {
  const runtime = process.env.XDG_RUNTIME_DIR ?? `/run/user/${String(process.getuid?.() ?? 0)}`;
  const owned: string[] = [];
  const places: string[] = [];
  try {
    mkdirSync(runtime, { recursive: true, mode: 0o700 });
    owned.push(mkdtempSync(path.join(runtime, 'toolgate-sockets-')));
    places.push(path.join(owned[0] as string, 'bus'));
  } catch {
    // A runtime folder this user may not create: the other places still stand for it.
  }
  const system = mkdtempSync('/var/tmp/toolgate-sockets-');
  owned.push(system);
  mkdirSync(path.join(home, '.gnupg'), { recursive: true, mode: 0o700 });
  mkdirSync(path.join(home, '.docker', 'desktop'), { recursive: true });
  places.push(path.join(home, '.gnupg', 'S.gpg-agent'), path.join(home, '.docker', 'desktop', 'docker.sock'), path.join(system, 'docker.sock'));
  const sockets = places.map((place, index) => ({ path: place, secret: `HOST-SOCKET-SECRET-${String(index)}` }));
  const servers = await Promise.all(sockets.map((socket) => listen(socket)));
  return {
    sockets,
    runtime: places.length === 4 ? path.dirname(places[0] as string) : undefined,
    async close() {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      for (const folder of owned) rmSync(folder, { recursive: true, force: true });
    },
  };
}

function listen(socket: HostSocket): Promise<Server> {
  const server = createServer((connection) => {
    connection.on('error', () => undefined);
    connection.once('data', () => connection.end(socket.secret));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket.path, () => resolve(server));
  });
}

/** A node script that connects to each path its first argument lists (JSON) and prints what it answers (the error code otherwise, on stderr). */
export const DIAL_JS = "for (const p of JSON.parse(process.argv.at(-1))) require('net').connect(p, function () { this.write('ask'); }).on('data', (d) => process.stdout.write(d + '\\n')).on('error', (e) => process.stderr.write(e.code + '\\n'));\n";

/** The same in python. */
export const DIAL_PY = [
  'import json, socket, sys',
  'for p in json.loads(sys.argv[-1]):',
  '    try:',
  '        s = socket.socket(socket.AF_UNIX); s.connect(p); s.sendall(b"ask"); print(s.recv(100).decode())',
  '    except OSError as e:',
  '        print(e, file=sys.stderr)',
  '',
].join('\n');

/** A python script that asks every socket among its descriptors above stderr, and prints what each answers. */
export const HELD_PY = [
  'import os, socket, stat',
  'for fd in range(3, 1024):',
  '    try:',
  '        if not stat.S_ISSOCK(os.fstat(fd).st_mode): continue',
  '    except OSError:',
  '        continue',
  '    try:',
  '        s = socket.socket(fileno=fd); s.settimeout(5); s.sendall(b"ask"); print(fd, s.recv(100).decode())',
  '    except OSError as e:',
  '        print(fd, e)',
  '',
].join('\n');

/** `node -e` arguments that run `DIAL_JS` on `paths`. */
export function nodeDial(paths: readonly string[]): string[] {
  return ['-e', DIAL_JS, JSON.stringify(paths)];
}

/** `python3 -c` arguments that run `DIAL_PY` on `paths`. */
export function pythonDial(paths: readonly string[]): string[] {
  return ['-c', DIAL_PY, JSON.stringify(paths)];
}
