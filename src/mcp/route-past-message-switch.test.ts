import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { setCallToolHandler } from './read-call-tool-request.js';
import { routePastMessageSwitch } from './route-past-message-switch.js';

interface Wire {
  readonly send: (message: unknown) => void;
  /** The next message the server writes. */
  readonly next: () => Promise<Record<string, unknown>>;
  readonly server: Server;
  readonly aborted: string[];
  /** What reached the SDK's message switch: a method, or "response". */
  readonly viaSwitch: string[];
}

const open: Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function connectRouted(): Promise<Wire> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = new Server({ name: 'routed', version: '1.0.0' }, { capabilities: { tools: {} } });
  const aborted: string[] = [];
  setCallToolHandler(server, async (params, extra) => {
    if (params.name === 'wait') await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }));
    if (extra.signal.aborted) aborted.push(params.name);
    return { content: [{ type: 'text', text: `ran ${params.name}` }] };
  });
  const transport = new StdioServerTransport(stdin, stdout);
  await server.connect(transport);
  const viaSwitch: string[] = [];
  const sdkSwitch = transport.onmessage;
  transport.onmessage = (message) => {
    viaSwitch.push('method' in message ? message.method : 'response');
    sdkSwitch?.(message);
  };
  expect(routePastMessageSwitch(server, transport)).toBe(true);
  open.push(server);
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let pending = '';
  stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
      lines.push(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
    }
    wake?.();
  });
  const next = async (): Promise<Record<string, unknown>> => {
    while (lines.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return JSON.parse(lines.shift() ?? '') as Record<string, unknown>;
  };
  return { send: (message) => stdin.write(`${JSON.stringify(message)}\n`), next, server, aborted, viaSwitch };
}

describe('routePastMessageSwitch', () => {
  it('answers a request through the protocol layer, id for id', async () => {
    const wire = await connectRouted();
    wire.send({ jsonrpc: '2.0', id: 'c-1', method: 'tools/call', params: { name: 'echo', arguments: {} } });
    expect(await wire.next()).toEqual({ jsonrpc: '2.0', id: 'c-1', result: { content: [{ type: 'text', text: 'ran echo' }] } });
    expect(wire.viaSwitch).toEqual([]);
  });

  it('answers an unknown method and malformed parameters with the protocol errors', async () => {
    const wire = await connectRouted();
    wire.send({ jsonrpc: '2.0', id: 1, method: 'tools/teleport', params: {} });
    expect(await wire.next()).toMatchObject({ id: 1, error: { code: -32601 } });
    wire.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 42 } });
    expect(await wire.next()).toMatchObject({ id: 2, error: { code: -32602 } });
  });

  it('keeps notifications on the message switch: a cancellation aborts the call in flight', async () => {
    const wire = await connectRouted();
    wire.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait', arguments: {} } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    wire.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'no longer needed' } });
    await expect.poll(() => wire.aborted).toEqual(['wait']);
    expect(wire.viaSwitch).toEqual(['notifications/cancelled']);
  });

  it('hands a result response to the protocol layer and keeps an error response on the switch', async () => {
    const wire = await connectRouted();
    const answered = wire.server.ping();
    const first = await wire.next();
    wire.send({ jsonrpc: '2.0', id: first.id, result: {} });
    await expect(answered).resolves.toEqual({});
    expect(wire.viaSwitch).toEqual([]);
    const refused = wire.server.ping();
    const second = await wire.next();
    wire.send({ jsonrpc: '2.0', id: second.id, error: { code: -32603, message: 'no' } });
    await expect(refused).rejects.toThrow('no');
    expect(wire.viaSwitch).toEqual(['response']);
  });

  it('routes a client too: a tools/call result reaches the caller past the switch', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const upstream = new McpServer({ name: 'upstream', version: '1.0.0' });
    upstream.registerTool('echo', { inputSchema: { text: z.string() } }, ({ text }) => ({ content: [{ type: 'text', text }] }));
    await upstream.connect(serverSide);
    const client = new Client({ name: 'routed', version: '1.0.0' });
    await client.connect(clientSide);
    const viaSwitch: string[] = [];
    const sdkSwitch = clientSide.onmessage;
    clientSide.onmessage = (message, extra) => {
      viaSwitch.push('method' in message ? message.method : 'response');
      sdkSwitch?.(message, extra);
    };
    expect(routePastMessageSwitch(client, clientSide)).toBe(true);
    await expect(client.callTool({ name: 'echo', arguments: { text: 'hi' } })).resolves.toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    expect(viaSwitch).toEqual([]);
    await Promise.all([client.close(), upstream.close()]);
  });

  it('leaves the switch in place where the protocol layer has no request entry', () => {
    const transport = { onmessage: () => undefined };
    const before = transport.onmessage;
    expect(routePastMessageSwitch({} as Server, transport)).toBe(false);
    expect(transport.onmessage).toBe(before);
  });
});
