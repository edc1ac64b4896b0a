import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// Server-side request forgery through an upstream fetch server: the gateway judges the upstream's `url` target by
// the https and allowedDomains floor, and `http_request` refuses a non-public destination even when an operator
// allowed its name. Here an operator allowed loopback names and a fetch server that really fetches: the internal
// service on 127.0.0.1 must stay out of reach, whatever spelling of loopback the URL uses.

const FETCHING = join(ROOT, 'test/__fixtures__/fetching-server.mjs');
const CERTS = join(ROOT, 'src/node/egress/__fixtures__');
const INTERNAL = 'internal-service-do-not-leak';
/** A name that does not resolve at the gateway, and that the fetch server's own resolver answers with loopback. */
const OWN_NAME = 'internal.rebind.test';
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

let internal: Server;
let port: number;
const reached: string[] = [];
let gateway: ServedGateway;
let mcp: Client;

beforeAll(async () => {
  internal = createServer({ cert: readFileSync(join(CERTS, 'test-cert.pem')), key: readFileSync(join(CERTS, 'test-key.pem')) }, (request, response) => {
    reached.push(request.url ?? '');
    response.end(INTERNAL);
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  port = (internal.address() as AddressInfo).port;
  const allowed = ['localhost', '127.0.0.1', '0.0.0.0', '[::ffff:7f00:1]', OWN_NAME];
  gateway = await serveGateway({
    scope: 'workspace-write',
    mode: 'auto',
    console: { enabled: false },
    policy: { allowedDomains: allowed, allow: ['mcp__web__fetch', 'http_request'] },
    servers: { web: { command: process.execPath, args: [FETCHING, 'mcp-server-fetch', '--resolve', `${OWN_NAME}=127.0.0.1`] } },
  });
  mcp = (await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client;
});

afterAll(async () => {
  await mcp?.close();
  await gateway?.cli.stop();
  internal?.closeAllConnections();
  await new Promise((resolve) => internal?.close(resolve));
});

describe('attack egress: a loopback service through an upstream fetch server', () => {
  it('every spelling of loopback an operator allowed is refused as non-public before the fetch server is called', async () => {
    const spellings = ['localhost', 'LocalHost', '127.0.0.1', '2130706433', '0x7f000001', '127.1', '0177.0.0.1', '0.0.0.0', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]'];
    for (const host of spellings) {
      const url = `https://${host}:${port}/admin`;
      const direct = await mcp.callTool({ name: 'http_request', arguments: { method: 'GET', url } });
      expect(text(direct), `http_request ${url}`).toContain('non-public address');
      const upstream = await mcp.callTool({ name: 'mcp_web_fetch', arguments: { url } });
      expect(text(upstream), `mcp_web_fetch ${url}`).not.toContain(INTERNAL);
      expect(upstream.isError, `mcp_web_fetch ${url}`).toBe(true);
      expect(text(upstream), `mcp_web_fetch ${url}`).toContain('non-public address');
    }
    expect(reached).toEqual([]);
  });

  it('a name the gateway cannot resolve is refused, not left to the fetch server, whose own resolver may lead it to loopback', async () => {
    const url = `https://${OWN_NAME}:${port}/admin`;
    const upstream = await mcp.callTool({ name: 'mcp_web_fetch', arguments: { url } });
    expect(text(upstream)).not.toContain(INTERNAL);
    expect(upstream.isError).toBe(true);
    expect(text(upstream)).toContain('did not resolve');
    expect(text(upstream)).not.toContain(OWN_NAME);
    expect(reached).toEqual([]);
  });
});
