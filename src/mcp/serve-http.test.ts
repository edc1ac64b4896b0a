import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { serveHttp, type HttpListener } from './serve-http.js';

describe('serveHttp', () => {
  let listener: HttpListener | undefined;
  afterEach(async () => {
    await listener?.close();
    listener = undefined;
  });

  test('a connection the client keeps alive holds nothing of the requests it carried', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const answered: WeakRef<ServerResponse>[] = [];
    const sockets = new Set<Socket>();
    const onFinish = (message: unknown): void => void answered.push(new WeakRef((message as { response: ServerResponse }).response));
    const onStart = (message: unknown): void => void sockets.add((message as { socket: Socket }).socket);
    subscribe('http.server.response.finish', onFinish);
    subscribe('http.server.request.start', onStart);
    try {
      listener = await serveHttp({}, () => {
        const server = new Server({ name: 'kept-alive', version: '1.0.0' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
        return { server, detach: () => undefined };
      });
      const transport = new StreamableHTTPClientTransport(new URL(listener.url));
      const client = new Client({ name: 'kept-alive', version: '1.0.0' });
      await client.connect(transport);
      await client.listTools();
      await transport.terminateSession();
      await client.close();
      expect(listener.sessions()).toBe(0);
      expect(answered.length).toBeGreaterThanOrEqual(3);
      await vi.waitFor(async () => {
        collectGarbage();
        await new Promise((resolve) => setImmediate(resolve));
        expect(answered.filter((response) => response.deref() !== undefined)).toHaveLength(0);
      });
      // The responses went while the connections that carried them stayed open for the next request.
      expect([...sockets].some((socket) => !socket.destroyed)).toBe(true);
    } finally {
      unsubscribe('http.server.response.finish', onFinish);
      unsubscribe('http.server.request.start', onStart);
    }
  });
});
