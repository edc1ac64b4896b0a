import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

/*
 * A local process against the sockets of `toolgate serve --http`: the MCP
 * endpoint and the console. Connections that send nothing, or trickle a
 * request head a line at a time, are held open by Node for a minute or for
 * good, and every one takes a descriptor the tool host needs for its files
 * and pipes. The gateway closes them within 10 s of connecting and keeps at
 * most 256 open, while an honest client goes on being served.
 */

const opened = closeAfterEach();
/** Every raw connection a test opened, destroyed after it: one the gateway failed to close must not hold up its shutdown. */
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

/** A raw connection, and when it closed (ms after it was opened), with the first line the server sent, if any. */
function rawConnection(port: string): { socket: Socket; closed: Promise<{ afterMs: number; answered: string | undefined }> } {
  const started = Date.now();
  const socket = connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  let answered: string | undefined;
  socket.on('data', (chunk: Buffer) => (answered ??= chunk.toString('latin1').split('\r\n')[0]));
  socket.on('error', () => undefined);
  const closed = new Promise<{ afterMs: number; answered: string | undefined }>((resolve) => socket.once('close', () => resolve({ afterMs: Date.now() - started, answered })));
  return { socket, closed };
}

/** A request head sent one line a second, never finished. */
function trickle(socket: Socket): () => void {
  let line = 0;
  socket.once('connect', () => socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(`X-Slow-${(line += 1)}: a\r\n`);
  }, 1_000);
  return () => clearInterval(timer);
}

describe('attack: connections that hold the gateway open', () => {
  it('closes a silent connection and a trickled request head within about 10 s, on the MCP endpoint and the console, while a client is served', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }));
    const ports = [gateway.mcpUrl.port, gateway.consoleUrl?.port ?? ''];
    const silent = ports.map((port) => rawConnection(port));
    const trickled = ports.map((port) => rawConnection(port));
    const stops = trickled.map((connection) => trickle(connection.socket));
    try {
      // Held open meanwhile, an honest client still lists and calls.
      const { client } = await connectClient(gateway.mcpUrl, 'honest', false, gateway.auth);
      opened.client(client);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      expect((await gateway.api('/api/approvals')).status).toBe(200);
      for (const { closed } of silent) {
        const { afterMs, answered } = await closed;
        expect(afterMs).toBeGreaterThanOrEqual(9_000);
        expect(afterMs).toBeLessThan(13_000);
        expect(answered).toBeUndefined();
      }
      for (const { closed } of trickled) {
        const { afterMs, answered } = await closed;
        expect(afterMs).toBeLessThan(13_000);
        // Node answers a head it gave up on with 408 before it closes, when it can.
        if (answered !== undefined) expect(answered).toBe('HTTP/1.1 408 Request Timeout');
      }
      // The client opened before is still served.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      for (const stop of stops) stop();
    }
  }, 30_000);

  it('keeps at most 256 connections open: the rest are closed as they arrive, and a client is served again once the idle ones are gone', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask' }));
    const port = gateway.consoleUrl?.port ?? '';
    const flood = Array.from({ length: 300 }, () => rawConnection(port));
    const settled = await Promise.all(flood.map(({ closed }) => Promise.race([closed.then(({ afterMs }) => afterMs), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2_000))])));
    const closedAtOnce = settled.filter((afterMs) => afterMs !== undefined).length;
    expect(closedAtOnce).toBeGreaterThanOrEqual(300 - 256);
    expect(closedAtOnce).toBeLessThan(300);
    // Every idle one is gone within the head's 10 s, and the console answers again.
    await Promise.all(flood.map(({ closed }) => closed));
    expect((await gateway.api('/api/approvals')).status).toBe(200);
  }, 30_000);
});
