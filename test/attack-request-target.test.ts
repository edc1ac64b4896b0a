import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, serveGateway } from './support/serve-gateway.js';

/*
 * A local process that holds no token sends the console and the MCP endpoint
 * a request whose target no URL parser reads (`GET http://[`). Both answered
 * 500 "internal error", and the console wrote the parser's stack to the
 * gateway's stderr (over stdio, the MCP client's log) for every such request:
 * any process on the machine could fill it. A target that is no URL is the
 * client's error, answered 400 before the Host check and the token, and
 * logged nowhere.
 */

const opened = closeAfterEach();

/** One raw HTTP/1.1 request (fetch sends no such target); resolves with the status line and the body. */
function rawRequest(url: URL, target: string): Promise<{ status: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.once('error', reject);
    socket.once('end', () => resolve({ status: text.split('\r\n')[0] ?? '', body: text.split('\r\n\r\n').slice(1).join('\r\n\r\n') }));
    socket.end(`GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
  });
}

describe('attack: a request target no URL parser reads', () => {
  it('is a 400 from the console and the MCP endpoint, with nothing written to the gateway\'s stderr', async () => {
    const gateway = opened.gateway(await serveGateway({}));
    const consoleUrl = gateway.consoleUrl as URL;
    for (const url of [consoleUrl, gateway.mcpUrl]) {
      for (const target of ['http://[', '//[', 'http://127.0.0.1:99999/']) {
        const answer = await rawRequest(url, target);
        expect(answer.status, `${url.origin} ${target}`).toMatch(/^HTTP\/1\.1 400 /);
        expect(answer.body).not.toMatch(/internal/i);
      }
    }
    // The console still answers an ordinary request.
    expect((await gateway.api('/api/approvals')).status).toBe(200);
    expect(gateway.cli.stderr()).not.toMatch(/request failed|ERR_INVALID_URL/);
  });
});
