import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { useAttackHomes } from './support/attack-workspace.js';
import { decideIfAsked } from './support/pending-approval.js';
import { closeAfterEach, connectClient, makeWorkspace, serveGateway, serveWorkspace, type ServedGateway } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';
import { ROOT } from './fixtures/mcp/helpers.js';

// A hostile model after the gateway's own secrets where the operator chose to keep them: the HTTP bearer token in
// a `--token-file` of the operator's choosing, and the journal's signing key beside a journal kept elsewhere than
// `.toolgate/`. Both are the gateway's, like `.toolgate/http-token` and the journal itself: no tool reads them,
// whatever the tier, the mode or a person's approval. Before, each was an ordinary file (the key a `.pem`, which a
// person could approve, and outside the workspace not even masked in the sandbox): `read_file`, `cat` and `tar` of
// the folder, allowed by a rule, handed them over with no card. With the token a process that reaches the loopback
// port calls tools as any client it names itself (a trusted one answers its own approvals); with the key it signs a
// rewritten journal.

const open = closeAfterEach();
const outsideFolder = useAttackHomes('toolgate-attack-secrets');
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);
const TOKEN = 'operator-token-file-value-0123456789abcdef';
const RULES = ['cat *', 'tar *'];
const policy = { allowedCommandGlobs: RULES, allow: [...RULES.map((rule) => `Bash(${rule})`), 'Read(/**)', 'Read(**)'] };

async function connect(gateway: ServedGateway): Promise<Client> {
  return open.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
}

/** Each way a model reads a file, and the folder around it; approved once when a card asks. */
async function readEveryWay(gateway: ServedGateway, client: Client, file: string, folder: string): Promise<string[]> {
  const answers: string[] = [];
  for (const [name, args] of [
    ['read_file', { path: file }],
    ['run_command', { command: ['cat', file] }],
    ['run_command', { command: ['tar', '-cf', '-', folder] }],
  ] as const) {
    const { result } = gateway.consoleUrl === undefined ? { result: await client.callTool({ name, arguments: args }) } : await decideIfAsked(gateway, client, name, args, 'once');
    answers.push(`${name} ${JSON.stringify(args)}: ${text(result)}`);
  }
  return answers;
}

describe('attack: the HTTP token in the file the operator named with --token-file', () => {
  it.each([['workspace-write', 'inside'], ['full', 'outside']])('in %s, a token file %s the workspace is read by no tool, approved or not', async (scope, where) => {
    const workspace = makeWorkspace({ scope, mode: 'auto', policy });
    const folder = where === 'inside' ? workspace : outsideFolder();
    const file = join(folder, 'gateway-token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    const gateway = open.gateway(await serveWorkspace(workspace, { args: ['--token-file', file] }));
    const client = await connect(gateway);
    const answers = await readEveryWay(gateway, client, where === 'inside' ? 'gateway-token' : file, where === 'inside' ? '.' : folder);
    for (const answer of answers) expect(answer).not.toContain(TOKEN);
    expect(answers[0]).toContain('protected');
  }, 30_000);
});

describe('attack: the journal signing key beside a journal kept elsewhere', () => {
  it.each([['workspace-write', 'inside'], ['full', 'outside']])('in %s, with the journal %s the workspace, its key is read by no tool, approved or not', async (scope, where) => {
    const folder = where === 'inside' ? 'audit' : outsideFolder();
    const gateway = open.gateway(await serveGateway({ scope, mode: 'auto', journal: { path: join(folder, 'journal.db'), sign: true }, policy }));
    const client = await connect(gateway);
    const keyFile = join(folder, 'keys', 'journal-ed25519.pem');
    const absolute = where === 'inside' ? join(gateway.workspace, keyFile) : keyFile;
    await expect.poll(() => existsSync(absolute)).toBe(true);
    const body = readFileSync(absolute, 'utf8').split('\n')[1] ?? '';
    expect(body.length).toBeGreaterThan(16);
    const answers = await readEveryWay(gateway, client, keyFile, folder);
    for (const answer of answers) expect(answer).not.toContain(body);
    expect(answers[0]).toContain('protected');
  }, 30_000);
});

describe("attack: the credential stores of the user's home, read by a command a glob allows", () => {
  // Agent and developer tools keep tokens in the home; the sandbox shows the root read-only, so only a mask hides them.
  const STORES = [
    '.codex/auth.json',
    '.cursor/mcp.json',
    '.config/github-copilot/apps.json',
    '.local/share/opencode/auth.json',
    '.config/git/credentials',
    '.config/hub',
    '.config/containers/auth.json',
    '.pgpass',
    '.my.cnf',
    '.vault-token',
    '.terraform.d/credentials.tfrc.json',
    '.m2/settings.xml',
    '.gradle/gradle.properties',
    '.boto',
    '.s3cfg',
    '.config/rclone/rclone.conf',
    '.oci/config',
    '.config/doctl/config.yaml',
    '.password-store/bank.gpg',
    '.local/share/keyrings/login.keyring',
  ];

  it('in workspace-write, `cat` of each, allowed by the rule, reads none of them', async () => {
    const home = outsideFolder();
    for (const store of STORES) {
      mkdirSync(dirname(join(home, store)), { recursive: true });
      writeFileSync(join(home, store), `home-secret:${store}\n`);
    }
    const gateway = open.gateway(await serveGateway({ scope: 'workspace-write', mode: 'auto', console: { enabled: false }, policy }, { env: { HOME: home } }));
    const client = await connect(gateway);
    // One call each: a name the protected list knows asks (here: is refused), and the rest must run and read nothing.
    for (const store of STORES) {
      const answer = text(await client.callTool({ name: 'run_command', arguments: { command: ['cat', join(home, store)] } }));
      expect(answer, store).not.toContain(`home-secret:${store}`);
      if (store === '.codex/auth.json') expect(answer).toContain('bwrap');
    }
  }, 30_000);
});

describe('attack: a repository that tracks files in .toolgate/, for the user to commit what the gateway writes there', () => {
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], { cwd, encoding: 'utf8' });
  /** A workspace holding `files`, committed as the repository came (`ignorecase`: how git reads names, when set). */
  const committed = (files: Record<string, string>, ignorecase?: boolean): string => {
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto' }, files);
    git(workspace, 'init', '-q');
    if (ignorecase !== undefined) git(workspace, 'config', 'core.ignorecase', String(ignorecase));
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-qm', 'the repository as it came');
    return workspace;
  };

  it.each([
    ['a .gitignore that ignores nothing', { '.toolgate/.gitignore': '!*\n' }],
    ['a placeholder token', { '.toolgate/http-token': 'placeholder-token-0123456789abcdef\n' }],
  ])('%s: the gateway refuses to start, and writes neither its token nor its journal where a commit takes them', async (_name, files) => {
    const workspace = committed(files);
    const started = await runCli(['serve', '--http', '0'], workspace, undefined, { TOOLGATE_TOKEN: undefined });
    expect(started.code, started.stderr).toBe(2);
    expect(started.stderr).toContain('git rm -r --cached');
    // Nothing of the gateway's is there for `git add -A` or `git commit -a` to take.
    expect(git(workspace, 'status', '--porcelain')).toBe('');
  }, 30_000);

  it.each([['the journal', 'audit/journal.db'], ['its anchor', 'audit/journal.anchor'], ['its keys folder', 'audit/keys/journal-ed25519.pem']])('%s, tracked where journal.path puts it: the start is refused, and the gateway writes no call there', async (_name, shipped) => {
    // The operator's configuration (untracked) keeps the journal in the workspace; the repository ships a file there.
    const workspace = makeWorkspace({ scope: 'workspace-write', mode: 'auto', journal: { path: 'audit/journal.db' } }, { 'notes.md': 'notes\n', [shipped]: '' });
    git(workspace, 'init', '-q');
    git(workspace, 'add', 'notes.md', shipped);
    git(workspace, 'commit', '-qm', 'the repository as it came');
    const called = await runCli(['call', 'read_file', '{"path":"notes.md"}'], workspace);
    expect(called.code, called.stdout).toBe(2);
    expect(called.stderr).toContain(`git rm --cached ${shipped}`);
    // Every call's arguments and results would have ridden along with the user's next `git commit -a`.
    expect(git(workspace, 'status', '--porcelain', '--untracked-files=no')).toBe('');
  }, 30_000);

  it('tracked as .TOOLGATE/ where git reads names without case (core.ignorecase, as on macOS): the start is refused', async () => {
    const workspace = committed({ '.TOOLGATE/.gitignore': '!*\n' }, true);
    const started = await runCli(['serve', '--http', '0'], workspace, undefined, { TOOLGATE_TOKEN: undefined });
    expect(started.code, started.stderr).toBe(2);
    expect(started.stderr).toContain('git rm -r --cached');
  }, 30_000);

  it('held: .TOOLGATE/ tracked where git reads names with their case is another folder, and the gateway starts', async () => {
    const workspace = committed({ '.TOOLGATE/notes.md': 'a folder of its own\n' }, false);
    const gateway = open.gateway(await serveWorkspace(workspace));
    expect(gateway.mcpUrl.protocol).toBe('http:');
  }, 30_000);

  it.skipIf(process.getuid?.() !== 0)('a repository another user owns, which git reads only when told to trust it (a mounted workspace): the start is refused', async () => {
    const workspace = committed({ '.toolgate/.gitignore': '!*\n' });
    // Git then refuses to read the repository without safe.directory, which the user's own configuration gives.
    chownSync(join(workspace, '.git'), 65534, 65534);
    const started = await runCli(['serve', '--http', '0'], workspace, undefined, { TOOLGATE_TOKEN: undefined });
    expect(started.code, started.stderr).toBe(2);
    expect(started.stderr).toContain('git rm -r --cached');
  }, 30_000);
});

describe("attack: the environment of the gateway and of an upstream server, read through /proc in the full tier", () => {
  // The jail is lifted there, so what holds is how each reads: read_file reads what `stat` says a file holds, which
  // is nothing for /proc's files, and a command sees the processes of its own PID namespace alone.
  it('read_file of their environ and cmdline, and a command that reads them, return none of the secrets', async () => {
    const upstream = 'upstream-env-secret-0123456789';
    const own = 'gateway-env-secret-0123456789';
    const reference = join(ROOT, 'test/fixtures/mcp/reference-servers.mjs');
    const gateway = open.gateway(
      await serveGateway(
        { scope: 'full', mode: 'auto', console: { enabled: false }, policy, servers: { git: { command: process.execPath, args: [reference, 'mcp-server-git'], env: { UPSTREAM_KEY: upstream } } } },
        { env: { GATEWAY_KEY: own } },
      ),
    );
    const client = await connect(gateway);
    const pid = String(gateway.cli.child.pid);
    const children = execFileSync('pgrep', ['-P', pid], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
    // The secrets are there to be read: the test process, outside every jail, sees them.
    expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).toContain(own);
    expect(children.some((child) => readFileSync(`/proc/${child}/environ`, 'utf8').includes(upstream))).toBe(true);
    const files = ['/proc/self/environ', `/proc/${pid}/environ`, `/proc/${pid}/cmdline`, ...children.map((child) => `/proc/${child}/environ`)];
    for (const file of files) {
      for (const [name, args] of [['read_file', { path: file }], ['run_command', { command: ['cat', file] }]] as const) {
        const answer = text(await client.callTool({ name, arguments: args }));
        expect(answer, `${name} ${file}`).not.toContain(own);
        expect(answer, `${name} ${file}`).not.toContain(upstream);
      }
    }
  }, 30_000);
});
