import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPolicy, createToolRegistry } from '../src/core/index.js';
import { connectMcpServers, type McpConnection, type McpServerStatus } from '../src/mcp/index.js';
import { stdioUpstream } from './fixtures/mcp/helpers.js';

/**
 * Upstream servers fail alone: one that does not start, hangs in its
 * handshake or stops later is reported with the tail of its stderr and
 * retried with backoff, while the others serve. Real fixture servers as
 * child processes, the real MCP SDK client.
 */
const counterFile = (): string => join(mkdtempSync(join(tmpdir(), 'toolgate-upstream-counter-')), 'starts');

async function until<T>(read: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const statusOf = (connection: McpConnection, server: string): McpServerStatus | undefined => connection.servers().find((status) => status.server === server);

describe('connectMcpServers with failing upstreams', () => {
  it('serves the working server beside one whose command does not exist, naming the broken one', async () => {
    const down: McpServerStatus[] = [];
    const connection = await connectMcpServers({
      servers: [{ name: 'gone', transport: 'stdio', command: '/nonexistent/toolgate-no-such-server' }, stdioUpstream('ok')],
      onEvent: (event, payload) => {
        if (event === 'server-down') down.push(payload as McpServerStatus);
      },
    });
    try {
      expect(connection.tools.map((tool) => tool.name)).toContain('mcp_ok_echo');
      expect(connection.tools.some((tool) => tool.name.startsWith('mcp_gone_'))).toBe(false);
      const gone = statusOf(connection, 'gone');
      expect(gone).toMatchObject({ state: 'down', failures: 1, tools: 0, error: expect.stringMatching(/ENOENT/) });
      expect((gone?.nextRetryAt ?? 0) - (gone?.since ?? 0)).toBe(1_000);
      expect(statusOf(connection, 'ok')).toMatchObject({ state: 'up', failures: 0 });
      expect(down.map((status) => status.server)).toEqual(['gone']);
      // A call that names the down server is refused typed, as unavailable, not as a policy denial.
      await expect(connection.capability.call({ server: 'gone', tool: 'echo', arguments: {} })).rejects.toMatchObject({ code: 'TOOL_UNAVAILABLE' });
      const answer = await connection.capability.call({ server: 'ok', tool: 'echo', arguments: { text: 'still here' } });
      expect(JSON.stringify(answer)).toContain('still here');
      // Retried with backoff: 1 s, then 2 s.
      const second = await until(() => ((statusOf(connection, 'gone')?.failures ?? 0) >= 2 ? statusOf(connection, 'gone') : undefined), 10_000);
      expect((second.nextRetryAt ?? 0) - second.since).toBe(2_000);
    } finally {
      await connection.close();
    }
  });

  it('offers a server that fails its first starts once a retry brings it up, with its stderr tail (masked) meanwhile', async () => {
    const counter = counterFile();
    const connection = await connectMcpServers({ servers: [stdioUpstream('late', { argv: ['--fail-first', '2', '--counter', counter] }), stdioUpstream('ok')] });
    const registry = connection.live(createToolRegistry({ tools: [], policy: createPolicy({ mcpServers: ['late', 'ok'] }) }));
    const changes: string[][] = [];
    registry.subscribe((next) => changes.push(next.list().map((info) => info.key)));
    try {
      const first = statusOf(connection, 'late');
      expect(first).toMatchObject({ state: 'down', error: expect.stringMatching(/Connection closed/) });
      expect(first?.stderr).toContain('error: the database is not ready');
      expect(first?.stderr).not.toContain('hunter2-fixture-secret');
      expect(registry.current().list().map((info) => info.key)).not.toContain('mcp_late_echo');
      const up = await until(() => (statusOf(connection, 'late')?.state === 'up' ? statusOf(connection, 'late') : undefined));
      expect(up).toMatchObject({ failures: 0, tools: expect.any(Number) });
      expect(up.error).toBeUndefined();
      expect(Number(readFileSync(counter, 'utf8'))).toBe(3);
      expect(registry.current().list().map((info) => info.key)).toContain('mcp_late_echo');
      expect(changes.at(-1)).toContain('mcp_late_echo');
      expect(connection.tools.map((tool) => tool.name)).toContain('mcp_late_echo');
    } finally {
      await connection.close();
    }
  });

  it('marks a server down when its handshake does not finish in time', async () => {
    const started = Date.now();
    const connection = await connectMcpServers({ servers: [stdioUpstream('hung', { argv: ['--hang'], connectTimeoutMs: 5_000 }), stdioUpstream('ok')] });
    try {
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(statusOf(connection, 'hung')).toMatchObject({ state: 'down', error: expect.stringMatching(/timed out/i), stderr: 'fixture-upstream: hanging' });
      expect(connection.tools.map((tool) => tool.name)).toContain('mcp_ok_echo');
    } finally {
      await connection.close();
    }
  });

  it('withdraws the tools of a server that crashes later, explains the missing name, and offers them again once it is back', async () => {
    const connection = await connectMcpServers({ servers: [stdioUpstream('cr', { argv: ['--crash-tool'] })] });
    const live = connection.live(createToolRegistry({ tools: [], policy: createPolicy({ mcpServers: ['cr'] }) }));
    try {
      expect(live.current().list().map((info) => info.key)).toContain('mcp_cr_echo');
      await expect(connection.capability.call({ server: 'cr', tool: 'crash', arguments: {} })).rejects.toBeDefined();
      const down = await until(() => (statusOf(connection, 'cr')?.state === 'down' ? statusOf(connection, 'cr') : undefined));
      expect(down.error).toMatch(/closed the connection/);
      expect(down.stderr).toContain('crashing on request');
      expect(live.current().list().map((info) => info.key)).not.toContain('mcp_cr_echo');
      expect(live.explainMissing?.('mcp_cr_echo')?.message).toMatch(/MCP server "cr" is down/);
      await until(() => (statusOf(connection, 'cr')?.state === 'up' ? true : undefined));
      expect(live.current().list().map((info) => info.key)).toContain('mcp_cr_echo');
      expect(JSON.stringify(await connection.capability.call({ server: 'cr', tool: 'echo', arguments: { text: 'back' } }))).toContain('back');
    } finally {
      await connection.close();
    }
  });

  it('stops retrying once closed', async () => {
    const counter = counterFile();
    const connection = await connectMcpServers({ servers: [stdioUpstream('never', { argv: ['--fail-first', '100', '--counter', counter] })] });
    await connection.close();
    const starts = Number(readFileSync(counter, 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(Number(readFileSync(counter, 'utf8'))).toBe(starts);
  });
});
