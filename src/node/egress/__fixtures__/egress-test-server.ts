import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressConnect, EgressLookup, ResolvedAddress } from '../../node-host-types.js';

const fixtures = new URL('./', import.meta.url);
/** A self-signed certificate for example.test, *.example.test, 93.184.216.34 and 8.8.8.8 (test-only). */
export const TEST_CERT = readFileSync(new URL('test-cert.pem', fixtures), 'utf8');
const TEST_KEY = readFileSync(new URL('test-key.pem', fixtures), 'utf8');

export interface EgressTestServer {
  readonly server: Server;
  readonly port: number;
  /** Every address the host asked to dial, in order. */
  readonly dialled: { address: string; port: number; servername: string }[];
  /** Dials the loopback server whatever validated address it is given. */
  readonly connect: EgressConnect;
  /** Answers from `answers`, per hostname; a function answer is called per lookup. */
  lookup(answers: Record<string, readonly ResolvedAddress[] | (() => readonly ResolvedAddress[])>): EgressLookup;
  close(): Promise<void>;
}

/**
 * A loopback HTTPS server with test routes, plus the host's test seams: the
 * injected lookup says what DNS "answers", the injected connect always dials
 * 127.0.0.1. No test ever reaches a real network.
 */
export async function startEgressTestServer(): Promise<EgressTestServer> {
  const server = createServer({ key: TEST_KEY, cert: TEST_CERT }, (request, response) => {
    const url = new URL(request.url ?? '/', 'https://placeholder');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const route = url.pathname;
      if (route === '/redirect') {
        response.writeHead(Number(url.searchParams.get('code') ?? 302), { location: url.searchParams.get('to') ?? '/' });
        response.end();
      } else if (route === '/hops') {
        const left = Number(url.searchParams.get('n') ?? 0);
        response.writeHead(302, { location: left <= 0 ? '/echo' : `/hops?n=${left - 1}` });
        response.end();
      } else if (route === '/big') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('x'.repeat(100_000));
      } else if (route === '/png') {
        response.writeHead(200, { 'content-type': 'image/png' });
        response.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
      } else if (route === '/hang') {
        // Never answers: the host's deadline must cut it.
      } else {
        response.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
        response.end(
          JSON.stringify({
            path: `${url.pathname}${url.search}`,
            host: request.headers.host,
            method: request.method,
            authorization: request.headers.authorization ?? null,
            cookie: request.headers.cookie ?? null,
            subscription: request.headers['x-subscription-token'] ?? null,
            body: Buffer.concat(chunks).toString('utf8'),
            // Search-provider shapes (SearXNG and Tavily: results; Brave: web.results).
            results: [{ title: 'Loopback result', url: 'https://example.test/page', content: 'a snippet' }],
            web: { results: [{ title: 'Loopback result', url: 'https://example.test/page', description: 'a snippet' }] },
          }),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const dialled: EgressTestServer['dialled'] = [];
  return {
    server,
    port,
    dialled,
    connect: async (target) => {
      dialled.push({ ...target });
      return new Promise<Duplex>((resolve, reject) => {
        const socket = net.connect({ host: '127.0.0.1', port });
        socket.once('connect', () => resolve(socket));
        socket.once('error', reject);
      });
    },
    lookup: (answers) => (hostname) => {
      const answer = answers[hostname];
      if (answer === undefined) return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
      return Promise.resolve(typeof answer === 'function' ? answer() : answer);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
