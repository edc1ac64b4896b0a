import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A hostile model in the `full` tier, with glob allows for reads and for `cat`, `tar` and `grep`, against the
// gateway running as root (as in containers and CI): the system's own secrets outside the home. Each file below is
// made only where nothing was, with a marker, and removed after; /etc/shadow is only read.

const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const MARK = 'SYSTEM-SECRET-0123456789';
const open = closeAfterEach();
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

// Real places, made only where absent; the other user's home stands in a test-made /home entry.
const PLANTED = [
  '/etc/ssh/ssh_host_toolgatetest_key',
  '/etc/kubernetes/admin.conf',
  '/var/run/secrets/kubernetes.io/serviceaccount/token',
  '/run/secrets/db_password',
  '/run/credentials/toolgate-test.service/token',
  '/var/lib/cloud/instance/user-data.txt',
  '/etc/letsencrypt/live/example.com/privkey.pem',
  '/etc/ssl/private/toolgate-test.key',
  '/etc/docker/daemon.json',
];
// Other homes' stores: masked in the sandbox as the gateway's own home's are, and in the full tier protected like them.
const HOMES = ['/root/.codex/auth.json', '/home/toolgatetest/.ssh/id_ed25519', '/home/toolgatetest/.aws/credentials'];
const made: string[] = [];
const onLinux = process.platform === 'linux' && process.getuid?.() === 0;

beforeAll(() => {
  if (!onLinux) return;
  for (const file of [...PLANTED, ...HOMES]) {
    if (existsSync(file)) continue;
    let top = dirname(file);
    while (!existsSync(dirname(top))) top = dirname(top);
    if (!existsSync(top)) made.push(top);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${MARK}\n`, { mode: 0o600 });
    if (!made.includes(top)) made.push(file);
  }
});
afterAll(() => {
  for (const entry of made.reverse()) rmSync(entry, { recursive: true, force: true });
});

describe.runIf(onLinux)('attack: system secrets in the full tier, the gateway running as root', () => {
  it("read_file and an upstream filesystem server rooted at / read none of them in auto, nor any home's stores", async () => {
    const home = mkdtempSync(join(tmpdir(), 'toolgate-home-'));
    // The gateway's own home: `.codex/auth.json` is no name the protected list knows, and read_file returned its token.
    mkdirSync(join(home, '.codex'));
    writeFileSync(join(home, '.codex', 'auth.json'), `${MARK}\n`);
    const gateway = open.gateway(
      await serveGateway(
        {
          scope: 'full',
          mode: 'auto',
          console: { enabled: false },
          servers: { fs: { command: process.execPath, args: [FILESYSTEM, '/'] } },
          policy: { allow: ['Read(/**)', 'Read(**)', 'mcp__fs__read_text_file', 'mcp__fs__list_directory'] },
        },
        { env: { HOME: home } },
      ),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const plain = await client.callTool({ name: 'read_file', arguments: { path: '/etc/hostname' } });
    expect(plain.isError, text(plain)).not.toBe(true);
    const shadow = readFileSync('/etc/shadow', 'utf8').split('\n')[0] as string;
    const leaks: string[] = [];
    for (const path of ['/etc/shadow', '/etc/gshadow', ...PLANTED, ...HOMES, join(home, '.codex', 'auth.json')]) {
      for (const [name, args] of [['read_file', { path }], ['mcp_fs_read_text_file', { path }]] as const) {
        const answer = text(await client.callTool({ name, arguments: args }));
        if (answer.includes(MARK) || answer.includes(shadow)) leaks.push(`${name} ${path}`);
      }
    }
    expect(leaks).toEqual([]);
  }, 60_000);

  it('under accept-edits, a read of them, or a write, waits for a person (here: none) and changes nothing', async () => {
    const home = mkdtempSync(join(tmpdir(), 'toolgate-home-'));
    const gateway = open.gateway(await serveGateway({ scope: 'full', mode: 'accept-edits', console: { enabled: false } }, { env: { HOME: home }, files: { 'notes.md': 'a\n' } }));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    // The mode still approves an ordinary edit, so a refusal below is the path's, not the mode's.
    const plain = await client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'b\n' } });
    expect(plain.isError, text(plain)).not.toBe(true);
    const sudoers = '/etc/sudoers.d/toolgate-test';
    if (!existsSync(dirname(sudoers))) made.push(dirname(sudoers));
    const writes: [string, string][] = [
      [sudoers, 'ALL ALL=(ALL) NOPASSWD: ALL\n'],
      ['/run/secrets/db_password', 'replaced\n'],
      ['/home/toolgatetest/.ssh/authorized_keys', 'ssh-ed25519 AAAA attacker\n'],
    ];
    for (const [path, content] of writes) {
      const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
      const result = await client.callTool({ name: 'write_file', arguments: { path, content } });
      expect(result.isError, `${path}: ${text(result)}`).toBe(true);
      expect(existsSync(path) ? readFileSync(path, 'utf8') : undefined, path).toBe(before);
    }
    const read = await client.callTool({ name: 'read_file', arguments: { path: '/etc/shadow' } });
    expect(read.isError, text(read)).toBe(true);
  }, 30_000);

  it('a glob-allowed cat, tar or grep -r reads none of them in the sandbox', async () => {
    const home = mkdtempSync(join(tmpdir(), 'toolgate-home-'));
    const gateway = open.gateway(
      await serveGateway(
        { scope: 'full', mode: 'auto', console: { enabled: false }, policy: { allowedCommandGlobs: ['cat *', 'tar *', 'grep *'], allow: ['Bash(cat *)', 'Bash(tar *)', 'Bash(grep *)'] } },
        { env: { HOME: home } },
      ),
    );
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    const shadow = readFileSync('/etc/shadow', 'utf8').split('\n')[0] as string;
    const leaks: string[] = [];
    // Named by their spelling, each waits for a person (here: none, so it is refused).
    for (const path of ['/etc/shadow', ...PLANTED]) {
      const answer = await client.callTool({ name: 'run_command', arguments: { command: ['cat', path] } });
      expect(answer.isError, path).toBe(true);
      if (text(answer).includes(MARK) || text(answer).includes(shadow)) leaks.push(`cat ${path}`);
    }
    for (const path of HOMES) {
      const answer = text(await client.callTool({ name: 'run_command', arguments: { command: ['cat', path] } }));
      if (answer.includes(MARK)) leaks.push(`cat ${path}`);
    }
    // Reached through a folder or a working directory the host does not know: each runs, and the sandbox masks them.
    const commands = [
      ['tar', '-cf', '-', '/etc', '/run', '/var/run/', '/home'],
      ['tar', '-cf', '-', '-C', '/etc', 'shadow', 'gshadow', 'hostname'],
      ['tar', '-cf', '-', '-C', '/', 'root/.codex', 'var/lib/cloud'],
      ['grep', '-r', MARK, '/etc', '/run', '/var/lib', '/home'],
      ['grep', '-rs', 'root:', '/etc'],
    ];
    for (const argv of commands) {
      const answer = await client.callTool({ name: 'run_command', arguments: { command: argv } });
      expect(answer.isError, `${argv.join(' ')}: ${text(answer)}`).not.toBe(true);
      if (text(answer).includes(MARK) || text(answer).includes(shadow)) leaks.push(argv.join(' '));
    }
    expect(leaks).toEqual([]);
  }, 90_000);
});
