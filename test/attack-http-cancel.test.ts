import { readdirSync, readlinkSync } from 'node:fs';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM } from './fixtures/mcp/helpers.js';
import { serveGateway, type ServedGateway } from './support/serve-gateway.js';

/**
 * A client that cancels its calls, through `toolgate serve --http` and the
 * SDK client. A cancelled request gets no answer, and its response stream
 * stayed open: every cancel left one connection open at the gateway, until
 * about 250 of them filled its 256 connections and no client could connect,
 * nor cancel a call again.
 */
function openSockets(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}

const CANCELS = 40;

describe('attack: a client cancels call after call over HTTP', () => {
  let gateway: ServedGateway;

  beforeAll(async () => {
    gateway = await serveGateway({
      console: { enabled: false },
      // One place: the calls after the first wait their turn.
      limits: { maxConcurrentCalls: 1 },
      // The fixture's `slow` tool with steps 0 waits until it is cancelled.
      servers: { fx: { command: process.execPath, args: [UPSTREAM], trust: 'annotations', tools: { slow: { governed: false } } } },
    });
  }, 60_000);

  afterAll(async () => {
    await gateway.cli.stop();
  });

  it('ends the stream of each cancelled call: the gateway holds no connection for it, and a new client still connects', async () => {
    const client = new Client({ name: 'canceller', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(gateway.mcpUrl, gateway.auth));
    const pid = gateway.cli.child.pid as number;
    try {
      await client.callTool({ name: 'mcp_fx_echo', arguments: { text: 'warm' } });
      const before = openSockets(pid);
      for (let index = 0; index < CANCELS; index += 1) {
        const stop = new AbortController();
        const call = client.callTool({ name: 'mcp_fx_slow', arguments: { steps: 0, every: 10 } }, undefined, { signal: stop.signal }).then(
          () => 'answered',
          () => 'cancelled',
        );
        await new Promise((resolve) => setTimeout(resolve, 20));
        stop.abort();
        expect(await call).toBe('cancelled');
      }
      // Left open, each cancel kept one for good: 40 more. The client's idle pooled connections go within its
      // keep-alive time (4 s), so the count is read until it is down, for at most 6 s.
      await expect.poll(() => openSockets(pid) - before, { timeout: 6_000, interval: 100 }).toBeLessThan(10);
      const other = new Client({ name: 'second', version: '1.0.0' });
      await other.connect(new StreamableHTTPClientTransport(gateway.mcpUrl, gateway.auth));
      expect(await other.callTool({ name: 'mcp_fx_echo', arguments: { text: 'still serving' } })).toMatchObject({ content: [{ type: 'text', text: 'still serving' }] });
      await other.close();
    } finally {
      await client.close();
    }
  }, 120_000);

  it('does not run a request whose cancellation came first, on another connection, and holds no place for it', async () => {
    const client = new Client({ name: 'early-canceller', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(gateway.mcpUrl, gateway.auth);
    await client.connect(transport);
    const headers = { ...(gateway.auth.requestInit.headers as Record<string, string>), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId as string, 'mcp-protocol-version': '2025-06-18' };
    const post = async (message: object): Promise<string> => (await fetch(gateway.mcpUrl, { method: 'POST', headers, body: JSON.stringify(message), signal: AbortSignal.timeout(10_000) })).text();
    try {
      // The client gave up on the call before its request reached the gateway: each is its own POST.
      await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'early-1', reason: 'the person cancelled it' } });
      // Run, it held the one place until cancelled again, which no client would do: every later call waited.
      const answer = await post({ jsonrpc: '2.0', id: 'early-1', method: 'tools/call', params: { name: 'mcp_fx_slow', arguments: { steps: 0, every: 10 } } });
      expect(answer).not.toContain('"result"');
      expect(await client.callTool({ name: 'mcp_fx_echo', arguments: { text: 'not held up' } }, undefined, { timeout: 10_000 })).toMatchObject({ content: [{ type: 'text', text: 'not held up' }] });
      // A cancellation of a request already answered is not kept for the next request of that id.
      expect(await post({ jsonrpc: '2.0', id: 'late-1', method: 'tools/call', params: { name: 'mcp_fx_echo', arguments: { text: 'once' } } })).toContain('once');
      await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'late-1' } });
      expect(await post({ jsonrpc: '2.0', id: 'late-1', method: 'tools/call', params: { name: 'mcp_fx_echo', arguments: { text: 'twice' } } })).toContain('twice');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('ends the streams of calls cancelled while they wait their turn, and the place still serves the next call', async () => {
    const client = new Client({ name: 'line-canceller', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(gateway.mcpUrl, gateway.auth));
    const pid = gateway.cli.child.pid as number;
    try {
      await client.callTool({ name: 'mcp_fx_echo', arguments: { text: 'warm' } });
      const before = openSockets(pid);
      const holder = new AbortController();
      const holding = client.callTool({ name: 'mcp_fx_slow', arguments: { steps: 0, every: 10 } }, undefined, { signal: holder.signal }).catch(() => 'cancelled');
      const stops = Array.from({ length: 20 }, () => new AbortController());
      const waiting = stops.map((stop) => client.callTool({ name: 'mcp_fx_echo', arguments: { text: 'late' } }, undefined, { signal: stop.signal }).then(() => 'answered', () => 'cancelled'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const stop of stops) stop.abort();
      expect(new Set(await Promise.all(waiting))).toEqual(new Set(['cancelled']));
      holder.abort();
      await holding;
      // The 21 calls went out at once on as many connections: the client lets the idle ones go after its keep-alive
      // time (4 s); a stream left open keeps its connection busy, and open.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(openSockets(pid) - before).toBeLessThan(10);
      expect(await client.callTool({ name: 'mcp_fx_echo', arguments: { text: 'next' } })).toMatchObject({ content: [{ type: 'text', text: 'next' }] });
    } finally {
      await client.close();
    }
  }, 120_000);
});
