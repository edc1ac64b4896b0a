import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { callUpstream } from './call-upstream.js';
import { setCallToolHandler } from './read-call-tool-request.js';
import { markUpstreamErrorResponses } from './upstream-error-response.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((party) => party.close()));
});

/** A client connected to a server answering every call with `result`; the tools/call messages the server received, as sent. */
async function connect(result: Record<string, unknown>): Promise<{ client: Client; received: JSONRPCMessage[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
  setCallToolHandler(server, () => Promise.resolve(result as never));
  await server.connect(serverSide);
  const received: JSONRPCMessage[] = [];
  const onMessage = serverSide.onmessage;
  serverSide.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'tools/call') received.push(structuredClone(message));
    onMessage?.(message, extra);
  };
  const client = new Client({ name: 'gateway', version: '1.0.0' });
  await client.connect(clientSide);
  open.push(client, server);
  return { client, received };
}

function call(client: Client, args: Record<string, unknown>, signal?: AbortSignal): ReturnType<typeof callUpstream> {
  return callUpstream({ client, name: 'mcp_up_echo', input: { server: 'up', tool: 'echo', arguments: args }, signal, timeoutMs: 5000, maxTotalTimeoutMs: undefined, cleanText: (text) => text });
}

describe('callUpstream', () => {
  it('reads an error response under the codes of its own timeout and closed connection as what the server answered', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    setCallToolHandler(server, (params) => Promise.reject(new McpError(Number((params.arguments as { code: number }).code), 'Request timed out')));
    await server.connect(serverSide);
    const client = new Client({ name: 'gateway', version: '1.0.0' });
    await client.connect(clientSide);
    markUpstreamErrorResponses(clientSide);
    open.push(client, server);
    for (const code of [-32001, -32000, -32603]) {
      const failure = await call(client, { code }).catch((error: unknown) => error);
      expect(failure, String(code)).toMatchObject({ code: 'EXECUTION_FAILED', message: `Tool "mcp_up_echo" failed: the MCP server answered with error ${code}.` });
    }
  });

  it('sends each call as one JSON-RPC request with its own id, that id as its progress token, and the arguments as given', async () => {
    const { client, received } = await connect({ content: [{ type: 'text', text: 'ok' }] });
    await call(client, { text: 'a' });
    await call(client, { text: 'b', n: 2 });
    expect(received).toHaveLength(2);
    const ids = received.map((message) => (message as { id: unknown }).id);
    expect(new Set(ids).size).toBe(2);
    received.forEach((message, index) => {
      expect(message).toEqual({
        jsonrpc: '2.0',
        id: ids[index],
        method: 'tools/call',
        params: { name: 'echo', arguments: index === 0 ? { text: 'a' } : { text: 'b', n: 2 }, _meta: { progressToken: ids[index] } },
      });
    });
  });

  it('hands on the part of the upstream result that goes on (never its _meta), and refuses one whose content is malformed', async () => {
    const { client } = await connect({ content: [{ type: 'text', text: 'ok' }], _meta: { 'example.com/trace': 'x' } });
    await expect(call(client, { text: 'a' })).resolves.toEqual({ content: [{ type: 'text', text: 'ok' }] });
    const { client: broken } = await connect({ content: [{ type: 'text' }] });
    await expect(call(broken, { text: 'a' })).rejects.toMatchObject({ code: 'EXECUTION_FAILED' });
  });

  it('rejects with the caller’s own reason when it aborts, even one that turns into no text (the SDK would throw turning it into words)', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new Server({ name: 'upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    const cancelled: unknown[] = [];
    setCallToolHandler(server, (_params, extra) => new Promise((resolve) => extra.signal.addEventListener('abort', () => resolve({ content: [] }))));
    await server.connect(serverSide);
    const onServerMessage = serverSide.onmessage;
    serverSide.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'notifications/cancelled') cancelled.push(message.params);
      onServerMessage?.(message, extra);
    };
    const client = new Client({ name: 'gateway', version: '1.0.0' });
    await client.connect(clientSide);
    open.push(client, server);
    for (const reason of [Object.create(null) as object, new Error('stopped')]) {
      const controller = new AbortController();
      const pending = call(client, { text: 'a' }, controller.signal);
      await new Promise((resolve) => setTimeout(resolve, 10));
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
    }
    // The SDK words a reason as `String(reason)`.
    await expect.poll(() => cancelled).toEqual([expect.objectContaining({ reason: 'Error: cancelled' }), expect.objectContaining({ reason: 'Error: stopped' })]);
  });
});
