import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { UPSTREAM } from './fixtures/mcp/helpers.js';
import { makeWorkspace, serveGateway, type ServedGateway } from './support/serve-gateway.js';
import { runCli } from './support/spawn-cli.js';

/**
 * One broken upstream never stops the gateway: through the built CLI, a
 * server whose command does not exist, or that exits at every start, is
 * named with the tail of its stderr and skipped; the working one is served
 * to the real MCP SDK client; one that comes up later is offered then.
 */
const TIMEOUT = 120_000;
const MISSING = '/nonexistent/toolgate-no-such-mcp-server';
const working = { command: process.execPath, args: [UPSTREAM], trust: 'annotations' };
const failing = (starts: number, counter: string) => ({ command: process.execPath, args: [UPSTREAM, '--fail-first', String(starts), '--counter', counter], trust: 'annotations' });
const counterFile = (): string => join(mkdtempSync(join(tmpdir(), 'toolgate-cli-counter-')), 'starts');

interface Status {
  server: string;
  state: string;
  error?: string;
  stderr?: string;
  nextRetryAt?: number;
}

async function until<T>(read: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('upstream servers fail alone (toolgate serve, toolgate tools)', () => {
  let served: ServedGateway | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    await served?.cli.stop();
    client = undefined;
    served = undefined;
  });

  async function connect(gateway: ServedGateway): Promise<Client> {
    const connected = new Client({ name: 'upstream-failures', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(gateway.mcpUrl, gateway.auth));
    client = connected;
    return connected;
  }

  it(
    'serves the working upstream beside one whose command does not exist, and shows the broken one as down in the console',
    async () => {
      served = await serveGateway({ servers: { gone: { command: MISSING }, ok: working } });
      const mcp = await connect(served);
      const names = (await mcp.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('mcp_ok_echo');
      expect(names.some((name) => name.startsWith('mcp_gone_'))).toBe(false);
      const answer = await mcp.callTool({ name: 'mcp_ok_echo', arguments: { text: 'served anyway' } });
      expect(answer.isError).not.toBe(true);
      expect(JSON.stringify(answer.content)).toContain('served anyway');
      const policy = (await served.api('/api/policy')).body as { servers: Status[] };
      const gone = policy.servers.find((status) => status.server === 'gone');
      expect(gone).toMatchObject({ state: expect.stringMatching(/^(down|retrying)$/), error: expect.stringMatching(/ENOENT/) });
      if (gone?.state === 'down') expect(gone.nextRetryAt).toBeGreaterThan(Date.now() - 1_000);
      expect(policy.servers.find((status) => status.server === 'ok')).toMatchObject({ state: 'up' });
    },
    TIMEOUT,
  );

  it(
    'toolgate tools exits 0 naming the down server with its stderr tail (masked), and 3 with --strict',
    async () => {
      const counter = counterFile();
      const workspace = makeWorkspace({ servers: { flaky: { ...failing(1000, counter), env: { FIXTURE_DB_TOKEN: 'qz81.plain.db-token' } }, ok: working } });
      const listed = await runCli(['tools'], workspace);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain('mcp_ok_echo');
      expect(listed.stdout).not.toContain('mcp_flaky_');
      expect(listed.stderr).toMatch(/warning: MCP server "flaky" is down: .*Connection closed; its tools are not listed/);
      expect(listed.stderr).toContain('    error: the database is not ready');
      expect(listed.stderr).not.toContain('hunter2-fixture-secret');
      // The token the configuration gave the server is masked, though no secret scanner knows its shape.
      expect(listed.stderr).toContain('    error: connecting as [redacted]');
      expect(listed.stderr).not.toContain('qz81.plain.db-token');
      const strict = await runCli(['tools', '--strict'], workspace);
      expect(strict.code).toBe(3);
      expect(strict.stdout).toContain('mcp_ok_echo');
      expect(strict.stderr).toContain('MCP server "flaky" is down');
      // Scripts keep the list on stdout; the down servers come as one document on stderr.
      const json = await runCli(['--json', 'tools'], workspace);
      expect(json.code).toBe(0);
      expect((JSON.parse(json.stdout) as { name: string }[]).map((tool) => tool.name)).toContain('mcp_ok_echo');
      const report = JSON.parse(json.stderr.trim().split('\n').at(-1) ?? '{}') as { serversDown: Status[] };
      expect(report.serversDown).toEqual([expect.objectContaining({ server: 'flaky', state: 'down', stderr: expect.stringContaining('the database is not ready') })]);
      // A gateway whose servers are all up is strict-clean.
      expect((await runCli(['tools', '--strict'], makeWorkspace({ servers: { ok: working } }))).code).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'offers a server that fails its first starts once a retry brings it up, telling the connected client',
    async () => {
      const counter = counterFile();
      served = await serveGateway({ servers: { late: failing(2, counter), ok: working } });
      const mcp = await connect(served);
      let changed = 0;
      mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed += 1;
      });
      expect((await mcp.listTools()).tools.map((tool) => tool.name)).not.toContain('mcp_late_echo');
      const gateway = served;
      const late = await until(async () => {
        const policy = (await gateway.api('/api/policy')).body as { servers: Status[] };
        const status = policy.servers.find((entry) => entry.server === 'late');
        return status?.state === 'up' ? status : undefined;
      });
      expect(late.error).toBeUndefined();
      expect(Number(readFileSync(counter, 'utf8'))).toBe(3);
      await until(() => Promise.resolve(changed > 0 ? true : undefined), 10_000);
      expect((await mcp.listTools()).tools.map((tool) => tool.name)).toContain('mcp_late_echo');
      const answer = await mcp.callTool({ name: 'mcp_late_echo', arguments: { text: 'up at last' } });
      expect(JSON.stringify(answer.content)).toContain('up at last');
    },
    TIMEOUT,
  );

  it(
    'bounds an upstream call as the configuration says: maxTotalTimeoutMs ends a call its server keeps alive with progress; a pipe bound on a url server is refused',
    async () => {
      const alive = { ...working, tools: { slow: { governed: false } }, timeoutMs: 5_000, maxTotalTimeoutMs: 1_000 };
      served = await serveGateway({ servers: { alive } });
      const mcp = await connect(served);
      const started = Date.now();
      // Progress every 20 ms for 200 s restarts the per-call timeout each time; only the total bound ends it.
      const answer = await mcp.callTool({ name: 'mcp_alive_slow', arguments: { steps: 10_000, every: 20 } }, undefined, { timeout: 60_000 });
      expect(answer.isError).toBe(true);
      expect(JSON.stringify(answer.content)).toContain('timed out after 1000 ms');
      expect(Date.now() - started).toBeLessThan(15_000);
      const refused = await runCli(['tools'], makeWorkspace({ servers: { remote: { url: 'http://127.0.0.1:9/mcp', local: true, maxUnreadBytes: 2048 } } }));
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('servers.remote.maxUnreadBytes applies only to a server started with a command');
    },
    TIMEOUT,
  );
});
