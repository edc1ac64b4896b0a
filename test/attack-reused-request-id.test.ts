import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { UPSTREAM } from './fixtures/mcp/helpers.js';
import { pendingApproval, type Pending } from './support/pending-approval.js';
import { closeAfterEach, serveGateway } from './support/serve-gateway.js';

// A hostile client that sends a second `tools/call` under the id of one still waiting for a person, through
// `toolgate serve --http` and raw JSON-RPC (an SDK client never reuses an id). The SDK keeps one abort controller per
// request id, so the second took the first's place: closing the session, or the client's own cancellation, then
// aborted the second alone, and the first call's card stayed in the console for a client that was gone. Approved
// there later, its effect ran. A session's calls are to end with it (docs/mcp.md, tools/call).

const open = closeAfterEach();

describe('attack: a request id reused while its call waits for a person', () => {
  it('the second request is refused, and closing the session withdraws the first call’s approval', async () => {
    // The fixture server is not trusted: its echo is governed, and asks a person in `ask` mode.
    const gateway = open.gateway(await serveGateway({ servers: { fx: { command: process.execPath, args: [UPSTREAM] } } }));
    const transport = new StreamableHTTPClientTransport(gateway.mcpUrl, gateway.auth);
    const client = open.client(new Client({ name: 'id-reuser', version: '1.0.0' }));
    await client.connect(transport);
    const headers = { ...(gateway.auth.requestInit.headers as Record<string, string>), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId as string, 'mcp-protocol-version': '2025-06-18' };
    const call = (text: string): Promise<string> =>
      fetch(gateway.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 'reused', method: 'tools/call', params: { name: 'mcp_fx_echo', arguments: { text } } }) }).then(
        (response) => response.text(),
        () => 'dropped',
      );
    void call('first');
    const first = await pendingApproval(gateway, 'mcp_fx_echo');
    const second = await Promise.race([call('second'), new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), 5_000))]);
    expect(second).toContain('already in flight');
    const pending = async (): Promise<Pending[]> => ((await gateway.api('/api/approvals')).body as Pending[]).filter((entry) => entry.toolName === 'mcp_fx_echo');
    expect((await pending()).map((entry) => entry.id)).toEqual([first.id]);
    // The client goes away: its session is closed, and every call of it ends, the first one's card with it.
    await transport.terminateSession();
    await expect.poll(async () => (await pending()).length, { timeout: 10_000 }).toBe(0);
  }, 60_000);
});
