import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, runCli, startCli, type RunningCli } from './support/spawn-cli.js';

const TOKEN = 'token-from-elsewhere-0123456789abcdef';

/** A workspace where a write inside it runs without asking (accept-edits): only the token stands between a local process and the file. */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-serve-token-'));
  writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'accept-edits', console: { enabled: false } }));
  return dir;
}

/** A client that would approve anything it is asked: a local process that answers its own approvals. */
async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'local-process', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { approve: true } }));
  const headers = token === undefined ? undefined : { Authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), headers === undefined ? {} : { requestInit: { headers } }));
  return client;
}

/** A raw initialize, so a refusal is seen as the status it is. */
async function initialize(url: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  await response.body?.cancel();
  return response.status;
}

function cmdline(pid: number | undefined): string {
  return readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8');
}

/** The human start-up banner is complete once the journal line is out. */
async function banner(cli: RunningCli): Promise<string> {
  await expect.poll(() => cli.stderr(), { timeout: 15_000 }).toContain('journal: ');
  return cli.stderr();
}

describe('toolgate serve --http: only a holder of the token reaches the gateway', () => {
  const running: RunningCli[] = [];
  const start = (args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv): RunningCli => {
    const cli = startCli(args, cwd, { TOOLGATE_TOKEN: undefined, ...env });
    running.push(cli);
    return cli;
  };
  afterEach(async () => {
    await Promise.all(running.splice(0).map((cli) => cli.stop()));
  });

  it('by default generates a token in .toolgate/http-token (mode 0600) and refuses every request without it: a local process writes nothing', async () => {
    const dir = workspace();
    const cli = start(['--json', 'serve', '--http', '0'], dir);
    const started = await cli.ready;
    const mcp = String(started.mcp);
    const tokenFile = join(dir, '.toolgate', 'http-token');
    expect(started.tokenFile).toBe(tokenFile);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, '.toolgate')).mode & 0o777).toBe(0o700);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The start-up document on stdout names the file, never the secret.
    expect(JSON.stringify(started)).not.toContain(token);

    // The attack: connect and write, with no token, a wrong one, or the right one where a bearer token does not go.
    const write = { name: 'write_file', arguments: { path: 'pwned.md', content: 'written by any local process\n' } };
    await expect(connect(mcp).then((client) => client.callTool(write))).rejects.toMatchObject({ code: 401 });
    await expect(connect(mcp, 'not-the-token-0123456789').then((client) => client.callTool(write))).rejects.toMatchObject({ code: 401 });
    expect(await initialize(`${mcp}?token=${token}`)).toBe(401);
    expect(await initialize(mcp, { authorization: token })).toBe(401);
    expect(existsSync(join(dir, 'pwned.md'))).toBe(false);

    const client = await connect(mcp, token);
    try {
      const wrote = await client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: 'written by the token holder\n' } });
      expect(wrote.isError).not.toBe(true);
      expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('written by the token holder\n');
      // The token file is the gateway's own: no tool reads it.
      const read = await client.callTool({ name: 'read_file', arguments: { path: '.toolgate/http-token' } });
      expect(read.isError).toBe(true);
      expect(JSON.stringify(read.content)).not.toContain(token);
    } finally {
      await client.close();
    }
    expect(cmdline(cli.child.pid)).not.toContain(token);
  });

  it('keeps the token, the journal and the pins out of the repository: `git add -A` stages nothing of .toolgate/', async () => {
    const dir = workspace();
    execFileSync('git', ['init', '-q'], { cwd: dir });
    const cli = start(['--json', 'serve', '--http', '0'], dir);
    await cli.ready;
    // Staged and pushed, the token would let anyone who reads the repository call tools, and the journal holds every call.
    execFileSync('git', ['add', '-A'], { cwd: dir });
    const staged = execFileSync('git', ['diff', '--cached', '--name-only'], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(staged).toEqual(['toolgate.config.json']);
    expect(existsSync(join(dir, '.toolgate', 'http-token'))).toBe(true);
  });

  it('prints the token once, when it is generated; a restart reuses it and names only the file', async () => {
    const dir = workspace();
    const first = start(['serve', '--http', '0'], dir);
    const announced = await banner(first);
    const token = readFileSync(join(dir, '.toolgate', 'http-token'), 'utf8').trim();
    expect(announced).toContain(token);
    expect(announced).toContain(join(dir, '.toolgate', 'http-token'));
    await first.stop();

    const second = start(['serve', '--http', '0'], dir);
    const again = await banner(second);
    expect(again).not.toContain(token);
    expect(again).toContain(join(dir, '.toolgate', 'http-token'));
    const mcp = /MCP: (\S+)/.exec(again)?.[1] ?? '';
    expect(await initialize(mcp)).toBe(401);
    expect(await initialize(mcp, { authorization: `Bearer ${token}` })).toBe(200);
  });

  it('replaces a token file others can read, or one that is a link, and never writes through the link', async () => {
    const dir = workspace();
    mkdirSync(join(dir, '.toolgate'), { mode: 0o700 });
    const tokenFile = join(dir, '.toolgate', 'http-token');
    const readable = 'readable-by-everyone-0123456789abcdef';
    writeFileSync(tokenFile, readable, { mode: 0o644 });
    chmodSync(tokenFile, 0o644);
    const widened = start(['--json', 'serve', '--http', '0'], dir);
    const first = await widened.ready;
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(tokenFile, 'utf8').trim()).not.toBe(readable);
    expect(await initialize(String(first.mcp), { authorization: `Bearer ${readable}` })).toBe(401);
    await widened.stop();

    // A link planted where the token goes (to a file the planter chose, or wants overwritten).
    const planted = join(dir, 'planted-token');
    writeFileSync(planted, TOKEN, { mode: 0o600 });
    rmSync(tokenFile);
    symlinkSync(planted, tokenFile);
    const linked = start(['--json', 'serve', '--http', '0'], dir);
    const second = await linked.ready;
    expect(lstatSync(tokenFile).isSymbolicLink()).toBe(false);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(planted, 'utf8')).toBe(TOKEN);
    expect(await initialize(String(second.mcp), { authorization: `Bearer ${TOKEN}` })).toBe(401);
    expect(await initialize(String(second.mcp), { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` })).toBe(200);
  });

  it('takes the token from TOOLGATE_TOKEN or --token-file instead, and keeps it out of the process table', async () => {
    const fromEnv = workspace();
    const viaEnv = start(['--json', 'serve', '--http', '0'], fromEnv, { TOOLGATE_TOKEN: `${TOKEN}\n` });
    const envStarted = await viaEnv.ready;
    expect(envStarted.tokenFile).toBeUndefined();
    expect(existsSync(join(fromEnv, '.toolgate', 'http-token'))).toBe(false);
    expect(await initialize(String(envStarted.mcp))).toBe(401);
    const client = await connect(String(envStarted.mcp), TOKEN);
    expect((await client.callTool({ name: 'write_file', arguments: { path: 'a.md', content: 'a\n' } })).isError).not.toBe(true);
    await client.close();
    expect(cmdline(viaEnv.child.pid)).not.toContain(TOKEN);

    const fromFile = workspace();
    const secret = join(mkdtempSync(join(tmpdir(), 'toolgate-secret-')), 'token');
    writeFileSync(secret, `${TOKEN}\n`, { mode: 0o600 });
    const viaFile = start(['--json', 'serve', '--http', '0', '--token-file', secret], fromFile);
    const fileStarted = await viaFile.ready;
    expect(fileStarted.tokenFile).toBe(secret);
    expect(await initialize(String(fileStarted.mcp), { authorization: 'Bearer wrong-but-long-enough-0123' })).toBe(401);
    expect(await initialize(String(fileStarted.mcp), { authorization: `Bearer ${TOKEN}` })).toBe(200);
    expect(cmdline(viaFile.child.pid)).not.toContain(TOKEN);
    // --token-file wins over the environment.
    const both = start(['--json', 'serve', '--http', '0', '--token-file', secret], workspace(), { TOOLGATE_TOKEN: 'the-environment-token-0123456789' });
    const bothStarted = await both.ready;
    expect(await initialize(String(bothStarted.mcp), { authorization: `Bearer ${TOKEN}` })).toBe(200);
    expect(await initialize(String(bothStarted.mcp), { authorization: 'Bearer the-environment-token-0123456789' })).toBe(401);
  });

  it('refuses a token file others can read, anything but a regular file, and a short token', async () => {
    const dir = workspace();
    const secrets = mkdtempSync(join(tmpdir(), 'toolgate-secret-'));
    const readable = join(secrets, 'readable');
    writeFileSync(readable, TOKEN, { mode: 0o640 });
    chmodSync(readable, 0o640);
    const short = join(secrets, 'short');
    writeFileSync(short, 'short', { mode: 0o600 });
    const noEnv = { TOOLGATE_TOKEN: undefined };
    const refused = [
      [await runCli(['serve', '--http', '0', '--token-file', readable], dir, undefined, noEnv), /--token-file .*readable.*chmod 600/],
      [await runCli(['serve', '--http', '0', '--token-file', secrets], dir, undefined, noEnv), /--token-file .*not a regular file/],
      [await runCli(['serve', '--http', '0', '--token-file', join(secrets, 'missing')], dir, undefined, noEnv), /--token-file .*missing/],
      [await runCli(['serve', '--http', '0', '--token-file', short], dir, undefined, noEnv), /at least 16/],
      [await runCli(['serve', '--http', '0'], dir, undefined, { TOOLGATE_TOKEN: 'short' }), /TOOLGATE_TOKEN.*at least 16/],
    ] as const;
    for (const [result, message] of refused) {
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });

  it('refuses --token on the command line, where every local user can read it, and names the alternatives', async () => {
    const result = await runCli(['serve', '--http', '0', '--token', TOKEN], workspace(), undefined, { TOOLGATE_TOKEN: undefined });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--token-file');
    expect(result.stderr).toContain('TOOLGATE_TOKEN');
  });

  it('--no-token serves loopback without a token, says so, and cannot be combined with a token', async () => {
    const dir = workspace();
    const cli = start(['serve', '--http', '0', '--no-token'], dir);
    const announced = await banner(cli);
    expect(announced).toMatch(/warning: .*no token/i);
    expect(existsSync(join(dir, '.toolgate', 'http-token'))).toBe(false);
    expect(await initialize(/MCP: (\S+)/.exec(announced)?.[1] ?? '')).toBe(200);

    const secret = join(mkdtempSync(join(tmpdir(), 'toolgate-secret-')), 'token');
    writeFileSync(secret, TOKEN, { mode: 0o600 });
    const withFile = await runCli(['serve', '--http', '0', '--no-token', '--token-file', secret], dir, undefined, { TOOLGATE_TOKEN: undefined });
    expect(withFile.code).toBe(2);
    const withEnv = await runCli(['serve', '--http', '0', '--no-token'], dir, undefined, { TOOLGATE_TOKEN: TOKEN });
    expect(withEnv.code).toBe(2);
    expect(withEnv.stderr).toContain('TOOLGATE_TOKEN');
  });

  it('leaves the stdio transport as it was: no token asked for, none written', async () => {
    const dir = workspace();
    const client = new Client({ name: 'stdio-client', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], cwd: dir, stderr: 'ignore' }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('write_file');
    } finally {
      await client.close();
    }
    expect(existsSync(join(dir, '.toolgate', 'http-token'))).toBe(false);
  });
});
