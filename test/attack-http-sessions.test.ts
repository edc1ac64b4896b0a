import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, serveGateway } from './support/serve-gateway.js';

/*
 * The gateway keeps at most 64 MCP sessions. The SDK client's `close()`
 * sends no DELETE, so a session outlives its client until it has been idle
 * for `sessionIdleMs` (30 minutes). A client holding the token that opens
 * and closes 64 clients in turn (two seconds) used to fill every slot: each
 * later client was refused (503 Too many sessions) for half an hour.
 */

const opened = closeAfterEach();

async function connect(url: URL, auth: { requestInit: RequestInit }, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, auth));
  return client;
}

describe('attack: one client fills every MCP session slot', () => {
  it('64 clients opened and closed without a DELETE leave room for the next; a client still connected keeps its session', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }));
    // Connected first, its session the oldest: it must never be the one closed for room.
    const victim = opened.client(await connect(gateway.mcpUrl, gateway.auth, 'victim'));
    for (let round = 0; round < 64; round += 1) {
      const churn = await connect(gateway.mcpUrl, gateway.auth, `churn-${round}`);
      await churn.listTools();
      await churn.close();
    }
    const late = opened.client(await connect(gateway.mcpUrl, gateway.auth, 'late'));
    expect((await late.listTools()).tools.length).toBeGreaterThan(0);
    expect((await victim.listTools()).tools.length).toBeGreaterThan(0);
  }, 30_000);
});
