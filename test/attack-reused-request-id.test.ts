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

/** A session of a gateway serving the fixture's trusted `slow` tool: raw JSON-RPC POSTs in it, each resolving with its response's text. */
async function trustedSession(): Promise<(body: unknown) => Promise<string>> {
  const gateway = open.gateway(await serveGateway({ console: { enabled: false }, servers: { fx: { command: process.execPath, args: [UPSTREAM], trust: 'annotations', tools: { slow: { governed: false } } } } }));
  const transport = new StreamableHTTPClientTransport(gateway.mcpUrl, gateway.auth);
  const client = open.client(new Client({ name: 'id-reuser', version: '1.0.0' }));
  await client.connect(transport);
  const headers = { ...(gateway.auth.requestInit.headers as Record<string, string>), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId as string, 'mcp-protocol-version': '2025-06-18' };
  const post = (body: unknown): Promise<string> => fetch(gateway.mcpUrl, { method: 'POST', headers, body: JSON.stringify(body) }).then((response) => response.text());
  return post;
}

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

  // A fifteenth attack: the refusal went out under the shared id, on the SDK's one stream per id. The duplicate's
  // stream had taken the first's place, so the first call's answer was never delivered and its POST stayed open, a
  // connection held for good (about 250 such pairs fill the gateway's 256); a cancel of it closed nothing either.
  it("the first request still gets its own answer, on its own stream, after a duplicate of its id is refused", async () => {
    const post = await trustedSession();
    const slow = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'mcp_fx_slow', arguments: { steps: 3, every: 500 } } };
    const first = post(slow);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await post(slow)).toContain('its id is the id of a request already in flight');
    const answered = await Promise.race([first, new Promise<string>((resolve) => setTimeout(() => resolve('no answer within 10 s'), 10_000))]);
    expect(answered).toContain('done after 3 steps');
    expect(answered).toContain('"id":7');
  }, 60_000);

  it('a cancel of the first request, after a duplicate of its id was refused, still ends its stream', async () => {
    const post = await trustedSession();
    // Twenty seconds of work: its stream ends long before only if the cancel ends it.
    const slow = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'mcp_fx_slow', arguments: { steps: 40, every: 500 } } };
    let ended = false;
    const first = post(slow).finally(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await post(slow)).toContain('its id is the id of a request already in flight');
    await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9, reason: 'no longer needed' } });
    await expect.poll(() => ended, { timeout: 8_000 }).toBe(true);
    expect(await first).not.toContain('done after');
  }, 60_000);
});
