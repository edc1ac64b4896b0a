import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { decide, decideIfAsked, pendingApproval, swapWhileApprovalWaits, type Pending } from './support/pending-approval.js';
import { connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// What a hostile model tries after the known attacks are shut: other names for a protected file (a hard link,
// a command's argument, a link inside the workspace, /proc), exec forms inside wrappers, loopback spelled
// every way, a URL two parsers read differently, the console approved from elsewhere, and remembered
// approvals stretched to other targets. Each drives `toolgate serve` with the MCP SDK client and checks the
// end effect: what came back, what is on disk, what reached the upstream. One gateway per describe.

const FILESYSTEM = join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const REFERENCE = join(ROOT, 'test/fixtures/mcp/reference-servers.mjs');
const UPSTREAM = join(ROOT, 'test/fixtures/mcp/upstream-server.mjs');
const SECRET = 'TOOLGATE_VARIANT_SECRET=hunter2';
const PAYLOAD = '[core]\n\tfsmonitor = "touch PWNED"\n';

const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

interface Opened {
  gateway: ServedGateway;
  mcp: Client;
}

/** One gateway for a describe block, closed after it. */
function shareGateway(config: object, files: Record<string, string>, prepare: (workspace: string) => void): () => Opened {
  let opened: Opened | undefined;
  beforeAll(async () => {
    const gateway = await serveGateway(config, { files });
    try {
      prepare(gateway.workspace);
      opened = { gateway, mcp: (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client };
    } catch (error) {
      await gateway.cli.stop();
      throw error;
    }
  });
  afterAll(async () => {
    await opened?.mcp.close();
    await opened?.gateway.cli.stop();
  });
  return () => opened as Opened;
}


/**
 * Start a call and answer the card it raises with `decision`; a call that answers without raising one fails the
 * expectation at once, with what it returned.
 */
async function decidedByPerson(opened: Opened, name: string, args: Record<string, unknown>, decision = 'reject'): Promise<{ result: object; card: Pending }> {
  const { result, card } = await decideIfAsked(opened.gateway, opened.mcp, name, args, decision);
  expect(card, `${name} answered without asking: ${JSON.stringify(result)}`).toBeDefined();
  return { result, card: card as Pending };
}

describe('attack variants: another name for a protected file', () => {
  const opened = shareGateway(
    {
      scope: 'workspace-write',
      mode: 'auto',
      policy: { allowedCommandGlobs: ['cat *', 'cp *', 'grep *', 'tar *', 'git grep *'], allow: ['Bash(cat *)', 'Bash(cp *)', 'Bash(grep *)', 'Bash(tar *)', 'Bash(git grep *)'] },
      servers: { fs: { command: process.execPath, args: [FILESYSTEM, '.'], trust: 'annotations' } },
    },
    { '.env': `${SECRET}\n`, '.ENV': 'TOOLGATE_VARIANT_UPPER=hunter2\n', 'id_ed25519': 'hunter2 private key\n', 'notes.md': 'first\n', 'payload.txt': PAYLOAD },
    (workspace) => {
      execFileSync('git', ['init', '-q'], { cwd: workspace });
      mkdirSync(join(workspace, 'config', 'deploy'), { recursive: true });
      writeFileSync(join(workspace, 'config', '.env.production'), 'TOOLGATE_VARIANT_PRODUCTION=hunter2\n');
      writeFileSync(join(workspace, 'config', 'readme.md'), 'ordinary\n');
      // What a careless copy or an extracted archive leaves: a second name for the same file.
      linkSync(join(workspace, '.env'), join(workspace, 'backup.txt'));
      linkSync(join(workspace, '.env'), join(workspace, 'config', 'deploy', 'old.txt'));
      linkSync(join(workspace, '.git', 'config'), join(workspace, 'gitconfig.txt'));
      symlinkSync('.env', join(workspace, 'settings.txt'));
      mkdirSync(join(workspace, 'sub'));
      symlinkSync('..', join(workspace, 'sub', 'up'));
    },
  );
  const gitConfig = (): string => readFileSync(join(opened().gateway.workspace, '.git', 'config'), 'utf8');

  it('a hard link to .env is read only when a person says so, by the built-in and by an upstream read-only tool alike', async () => {
    for (const [name, args] of [
      ['read_file', { path: 'backup.txt' }],
      ['mcp_fs_read_text_file', { path: 'backup.txt' }],
      ['mcp_fs_read_multiple_files', { paths: ['notes.md', 'backup.txt'] }],
    ] as const) {
      const { result, card } = await decidedByPerson(opened(), name, args);
      expect(card.target?.files.some((file) => file.flags.includes('hardlink')), name).toBe(true);
      expect(card.reasons.protectedPath, name).toBe(true);
      expect(text(result), name).not.toContain('hunter2');
    }
    // The ordinary file next to it still reads at once in auto.
    expect(text(await opened().mcp.callTool({ name: 'read_file', arguments: { path: 'notes.md' } }))).toContain('first');
  });

  it('a hard link to .git/config is never written through, even approved, and never read without a person', async () => {
    const before = gitConfig();
    const write = await decidedByPerson(opened(), 'write_file', { path: 'gitconfig.txt', content: PAYLOAD }, 'once');
    expect(write.result).toMatchObject({ isError: true });
    expect(gitConfig()).toBe(before);
    const { result } = await decidedByPerson(opened(), 'read_file', { path: 'gitconfig.txt' });
    expect(text(result)).not.toContain('repositoryformatversion');
  });

  it('a command allowed by a rule that names a protected file in its arguments waits for a person: nothing read, .git/config unchanged', async () => {
    const before = gitConfig();
    for (const command of [
      ['cat', '.env'],
      ['cat', 'sub/../.env'],
      ['cat', join(opened().gateway.workspace, '.env')],
      ['cp', 'payload.txt', '.git/config'],
    ]) {
      const { result, card } = await decidedByPerson(opened(), 'run_command', { command });
      expect(card.reasons.protectedPath, command.join(' ')).toBe(true);
      expect(text(result), command.join(' ')).not.toContain('hunter2');
    }
    expect(gitConfig()).toBe(before);
    // An ordinary file under the same rule runs at once.
    expect(text(await opened().mcp.callTool({ name: 'run_command', arguments: { command: ['cat', 'notes.md'] } }))).toContain('first');
  });

  // The host resolves where each path a command's arguments name really leads: a link or a hard link to a
  // protected file asks, and the card names the file it reaches.
  it('a command naming a link to .env, or a hard link to it, waits for a person whose card shows where the argument really leads', async () => {
    for (const [command, shown] of [
      [['cat', 'settings.txt'], { path: '.env', requested: 'settings.txt', flags: ['protected', 'link', 'hardlink'] }],
      [['cat', 'backup.txt'], { path: 'backup.txt', flags: ['hardlink'] }],
    ] as const) {
      const { result, card } = await decidedByPerson(opened(), 'run_command', { command });
      expect(card.target?.command?.paths, command.join(' ')).toEqual([shown]);
      expect(text(result), command.join(' ')).not.toContain('hunter2');
    }
  });

  // The floor sees only the names in an argv; a command that reads the whole tree is answered by the OS sandbox,
  // which masks every protected file the workspace holds when the command starts (bwrap; without it see the docs).
  it('a recursive read of the workspace under an allowed rule does not return .env without a person', async () => {
    const result = await opened().mcp.callTool({ name: 'run_command', arguments: { command: ['grep', '-r', 'hunter2', '.'] } });
    expect(text(result)).not.toContain('hunter2');
    expect(result.isError).toBeFalsy();
  });

  it('nor does any other whole-tree read: no path (the working directory), a subfolder, an archive, a copy, git grep, a secret made after start', async () => {
    const { gateway, mcp } = opened();
    writeFileSync(join(gateway.workspace, 'config', 'deploy', '.env.late'), 'TOOLGATE_VARIANT_LATE=hunter2\n');
    // Each also names an ordinary file's text (`ran`), so a command that did not run cannot pass.
    const reads: { command: string[]; cwd?: string; ran: string }[] = [
      { command: ['grep', '-r', '-e', 'hunter2', '-e', 'first'], ran: 'first' },
      { command: ['grep', '-r', '-e', 'hunter2', '-e', 'ordinary', '.'], cwd: 'config', ran: 'ordinary' },
      { command: ['grep', '-ri', '-e', 'HUNTER2', '-e', 'ORDINARY', 'config'], ran: 'ordinary' },
      { command: ['tar', '-cf', '-', '.'], ran: 'notes.md' },
      { command: ['cp', '-r', 'config', 'copy'], ran: '' },
      { command: ['grep', '-r', '-e', 'hunter2', '-e', 'ordinary', 'copy'], ran: 'ordinary' },
      { command: ['cat', 'copy/deploy/old.txt', 'copy/readme.md'], ran: 'ordinary' },
      { command: ['git', 'grep', '--no-index', '-e', 'hunter2', '-e', 'first'], ran: 'first' },
    ];
    for (const { command, cwd, ran } of reads) {
      const output = text(await mcp.callTool({ name: 'run_command', arguments: { command, ...(cwd === undefined ? {} : { cwd }) } }));
      expect(output, command.join(' ')).toContain(ran);
      expect(output, command.join(' ')).not.toContain('hunter2');
    }
    // A folder name may hold a line break: the protected globs still reach what it holds.
    mkdirSync(join(gateway.workspace, 'line\nbreak'));
    writeFileSync(join(gateway.workspace, 'line\nbreak', '.env'), 'TOOLGATE_VARIANT_LINE_BREAK=hunter2\n');
    const lineBreak = text(await mcp.callTool({ name: 'run_command', arguments: { command: ['grep', '-r', '-e', 'hunter2', '-e', 'first'] } }));
    expect(lineBreak).toContain('first');
    expect(lineBreak).not.toContain('hunter2');
    expect(readFileSync(join(gateway.workspace, '.env'), 'utf8')).toContain('hunter2');
  });

  it('held: /proc/self/cwd and /proc/self/root are outside the workspace; a link to .. inside it is judged where it leads', async () => {
    for (const path of ['/proc/self/cwd/.env', `/proc/self/root${opened().gateway.workspace}/.env`]) {
      for (const name of ['read_file', 'mcp_fs_read_text_file']) {
        const result = await opened().mcp.callTool({ name, arguments: { path } });
        expect(result.isError, `${name} ${path}`).toBe(true);
        expect(text(result), `${name} ${path}`).toContain('outside the allowed filesystem scope');
      }
    }
    for (const name of ['read_file', 'mcp_fs_read_text_file']) {
      const { result, card } = await decidedByPerson(opened(), name, { path: 'sub/up/.env' });
      expect(card.target?.files[0]).toMatchObject({ path: '.env', flags: expect.arrayContaining(['protected', 'link']) as unknown });
      expect(text(result)).not.toContain('hunter2');
    }
  });
});

describe('attack variants: exec forms inside wrappers and interpreters', () => {
  const globs = ['awk *', 'env *', 'nice *', 'timeout *', 'busybox *', 'xargs *', 'flock *', 'stdbuf *', 'sed *', 'find *', 'git *', 'python3 *', 'node *', 'perl *', 'ruby *'];
  const opened = shareGateway({ scope: 'workspace-write', mode: 'auto', policy: { allowedCommandGlobs: globs, allow: globs.map((glob) => `Bash(${glob})`) } }, { 'notes.md': 'first\n' }, (workspace) => {
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    mkdirSync(join(workspace, 'tools'));
    symlinkSync('/bin/sh', join(workspace, 'tools', 'awk'));
  });

  it('held: every form is refused by the floor before anyone is asked, and nothing runs', async () => {
    const marker = join(opened().gateway.workspace, 'PWNED');
    const forms = [
      ['nice', '-n', '5', 'env', 'sh', '-c', 'touch PWNED'],
      ['env', '-S', 'sh -c "touch PWNED"'],
      ['env', '--split-string=sh -c "touch PWNED"'],
      ['timeout', '5', 'sh', '-c', 'touch PWNED'],
      ['busybox', 'sh', '-c', 'touch PWNED'],
      ['stdbuf', '-oL', 'awk', 'BEGIN{system("touch PWNED")}'],
      ['xargs', '-I{}', 'sh', '-c', 'touch PWNED'],
      ['flock', 'lockfile', 'sh', '-c', 'touch PWNED'],
      ['find', '.', '-maxdepth', '0', '-fprintf', 'PWNED', 'x'],
      ['sed', '-n', 'w PWNED', 'notes.md'],
      ['sed', 's/first/x/w PWNED', 'notes.md'],
      ['sed', '--expression=1e touch PWNED', 'notes.md'],
      ['sed', '-ne', '1e touch PWNED', 'notes.md'],
      ['git', '-c', 'alias.x=!touch PWNED', 'x'],
      ['git', '-ccore.pager=touch PWNED', 'log'],
      ['git', 'grep', '-Otouch PWNED', 'first'],
      ['git', 'ls-remote', '--upload-pack=touch PWNED', '.'],
      ['git', 'archive', '--remote=.', '--exec=touch PWNED', 'HEAD'],
      ['python3', '-I', '-c', 'open("PWNED", "w")'],
      ['python3', '-Ic', 'open("PWNED", "w")'],
      ['node', '--eval=require("fs").writeFileSync("PWNED", "")'],
      ['node', '-pe', 'require("fs").writeFileSync("PWNED", "")'],
      ['perl', '-MPOSIX', '-e', 'open(F, ">PWNED")'],
      ['perl', '-we', 'open(F, ">PWNED")'],
      ['ruby', '-e', 'File.write("PWNED", "")'],
      // A program path that is a link to sh, spelled like an allowed program.
      ['tools/awk', '-c', 'touch PWNED'],
      ['./tools/awk', '-c', 'touch PWNED'],
    ];
    for (const command of forms) {
      const result = await opened().mcp.callTool({ name: 'run_command', arguments: { command } });
      expect(result.isError, command.join(' ')).toBe(true);
      expect(text(result), command.join(' ')).toContain('was refused');
    }
    expect((await opened().gateway.api('/api/approvals')).body).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('attack variants: egress to loopback, and a URL two parsers read differently', () => {
  const loopbacks = ['localhost', '2130706433', '0x7f000001', '127.1', '0177.0.0.1', '0.0.0.0'];
  let log = '';
  const opened = shareGateway(
    {
      scope: 'workspace-write',
      mode: 'auto',
      policy: { allowedDomains: ['docs.example.com', ...loopbacks], allow: ['mcp__web__fetch', ...loopbacks.map((host) => `WebFetch(domain:${host})`)] },
      servers: { web: { command: process.execPath, args: [REFERENCE, 'mcp-server-fetch', '--log', 'fetch-log.jsonl'] } },
    },
    { 'fetch-log.jsonl': '' },
    (workspace) => (log = join(workspace, 'fetch-log.jsonl')),
  );

  it('held: every spelling of a loopback host an operator allowed is refused as non-public; userinfo is refused', async () => {
    for (const host of loopbacks) {
      const result = await opened().mcp.callTool({ name: 'http_request', arguments: { method: 'GET', url: `https://${host}/` } });
      expect(text(result), host).toContain('non-public address');
    }
    for (const url of ['https://[::ffff:127.0.0.1]/', 'https://[::]/', 'https://evil.example#@docs.example.com/']) {
      const result = await opened().mcp.callTool({ name: 'http_request', arguments: { method: 'GET', url } });
      expect(text(result), url).toContain('not in the allowed domains');
    }
    const userinfo = await opened().mcp.callTool({ name: 'http_request', arguments: { method: 'GET', url: 'https://docs.example.com@evil.example/' } });
    expect(text(userinfo)).toContain('credentials');
    const zone = await opened().mcp.callTool({ name: 'http_request', arguments: { method: 'GET', url: 'https://[fe80::1%25lo]/' } });
    expect(text(zone)).toContain('cannot be parsed');
  });

  it('a backslash that hides another host from the gateway is refused before the upstream fetch server sees it', async () => {
    // WHATWG reads `docs.example.com` as the host; Python's URL parsers, which the fetch server uses, read `evil.example`.
    for (const url of ['https://docs.example.com\\@evil.example/', 'https://docs.example.com\t@evil.example/']) {
      const result = await opened().mcp.callTool({ name: 'mcp_web_fetch', arguments: { url } });
      expect(result.isError, url).toBe(true);
    }
    expect((await opened().gateway.api('/api/approvals')).body).toEqual([]);
    expect(readFileSync(log, 'utf8')).toBe('');
  });
});

describe('attack variants: approvals stretched, and approved from elsewhere', () => {
  const opened = shareGateway(
    {
      scope: 'workspace-write',
      mode: 'ask',
      policy: { allowedCommandGlobs: ['rm *'] },
      servers: { fs: { command: process.execPath, args: [FILESYSTEM, '.'] }, fx: { command: process.execPath, args: [UPSTREAM] } },
    },
    { 'notes.md': 'first\n', 'a.txt': 'a\n', '.env': `${SECRET}\n`, 'plain.md': 'plain\n' },
    () => undefined,
  );

  it('an upstream read whose file is swapped for a link to .env while its approval waits is refused, typed, and returns nothing', async () => {
    const { gateway, mcp } = opened();
    const { card, result } = await swapWhileApprovalWaits(gateway, mcp, { name: 'mcp_fs_read_text_file', arguments: { path: 'plain.md' } }, 'plain.md', '.env');
    expect(card.target?.files[0]).toMatchObject({ path: 'plain.md', flags: [] });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('target changed');
    expect(text(result)).not.toContain('hunter2');
  });

  it('held: an upstream write approved for the session asks again for another path; an upstream tool and mcp_call ask again for other arguments', async () => {
    const { gateway, mcp } = opened();
    const sessionApproved = async (name: string, args: Record<string, unknown>): Promise<void> => {
      const call = mcp.callTool({ name, arguments: args });
      await decide(gateway, (await pendingApproval(gateway, name)).id, 'session');
      expect((await call).isError, name).toBeFalsy();
    };
    await sessionApproved('mcp_fs_write_file', { path: 'a.txt', content: 'one' });
    await decidedByPerson(opened(), 'mcp_fs_write_file', { path: 'b.txt', content: 'two' });
    expect(existsSync(join(gateway.workspace, 'b.txt'))).toBe(false);
    await sessionApproved('mcp_fx_echo', { text: 'hello' });
    expect(text((await decidedByPerson(opened(), 'mcp_fx_echo', { text: 'other' })).result)).not.toContain('other');
    await sessionApproved('mcp_call', { server: 'fx', tool: 'echo', arguments: { text: 'first' } });
    expect(text((await decidedByPerson(opened(), 'mcp_call', { server: 'fx', tool: 'echo', arguments: { text: 'second' } })).result)).not.toContain('second');
    // A call whose card masked a value is never approved by a remembered approval, not even the identical call.
    const masked = { server: 'fx', tool: 'echo', arguments: { text: `token ghp_${'a'.repeat(36)}` } };
    await sessionApproved('mcp_call', masked);
    const again = await decidedByPerson(opened(), 'mcp_call', masked);
    expect(again.card.masked).toBe(1);
    expect(again.result).toMatchObject({ isError: true });
  });

  it('held: a right-to-left override in an argument is escaped in the preview a person reads', async () => {
    const { card } = await decidedByPerson(opened(), 'run_command', { command: ['rm', '-f', 'notes\u202Edm.txt'] });
    expect(card.preview.command).toContain('\\u202e');
    expect(existsSync(join(opened().gateway.workspace, 'notes.md'))).toBe(true);
  });

  it('held: a decision without the token, with it in the query, or with the cookie from another origin is refused; the call still waits', async () => {
    const { gateway, mcp } = opened();
    const call = mcp.callTool({ name: 'write_file', arguments: { path: 'c.txt', content: 'c' } });
    const { id } = await pendingApproval(gateway, 'write_file');
    const consoleUrl = gateway.consoleUrl as URL;
    const token = consoleUrl.searchParams.get('token') ?? '';
    const cookie = `toolgate_console_${consoleUrl.port}=${token}`;
    const json = JSON.stringify({ decision: 'once' });
    const attempts: [string, string, Record<string, string>, string][] = [
      ['no token', `/api/approvals/${id}`, { 'content-type': 'application/json' }, json],
      ['token in the query', `/api/approvals/${id}?token=${token}`, { 'content-type': 'application/json' }, json],
      ['a form post', `/api/approvals/${id}?token=${token}`, { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' }, 'decision=once'],
      ['the cookie from another port', `/api/approvals/${id}`, { 'content-type': 'application/json', cookie, origin: `http://127.0.0.1:${Number(consoleUrl.port) + 1}` }, json],
      ['the cookie with no origin', `/api/approvals/${id}`, { 'content-type': 'application/json', cookie }, json],
      ['the cookie as text/plain from another site', `/api/approvals/${id}`, { 'content-type': 'text/plain', cookie, origin: 'http://evil.example' }, json],
    ];
    for (const [label, path, headers, body] of attempts) {
      const response = await fetch(new URL(path, consoleUrl), { method: 'POST', headers, body });
      expect([401, 403], label).toContain(response.status);
    }
    expect(existsSync(join(gateway.workspace, 'c.txt'))).toBe(false);
    await decide(gateway, id, 'reject');
    expect((await call).isError).toBe(true);
    // Replayed with the token after the call was decided: nothing is pending under that id.
    expect((await gateway.api(`/api/approvals/${id}`, { method: 'POST', body: json })).status).toBe(404);
    expect(existsSync(join(gateway.workspace, 'c.txt'))).toBe(false);
  });
});
