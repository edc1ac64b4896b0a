import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { closeAfterEach, connectClient, serveGateway, type ServedGateway } from './support/serve-gateway.js';

// The console's media route (`GET /api/media/<hex>`) against `toolgate serve` with an upstream whose tools answer
// with images (test/__fixtures__/media-server.mjs), some of which lie about what their bytes are: only media a
// receipt of this journal lists, only with the console's token and Host, and only raster images whose bytes are
// what they claim are ever served as images.

const MEDIA_SERVER = join(ROOT, 'test/__fixtures__/media-server.mjs');
const opened = closeAfterEach();

interface Fetched {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
}

async function fetchMedia(gateway: ServedGateway, path: string, headers: Record<string, string> = {}): Promise<Fetched> {
  const consoleUrl = gateway.consoleUrl as URL;
  const token = consoleUrl.searchParams.get('token') ?? '';
  const response = await fetch(new URL(path, consoleUrl), { headers: { 'x-toolgate-token': token, ...headers } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** A request sent as written: the path not normalized, the Host header as given. */
function rawRequest(gateway: ServedGateway, path: string, host?: string): Promise<number> {
  const consoleUrl = gateway.consoleUrl as URL;
  const token = consoleUrl.searchParams.get('token') ?? '';
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port: consoleUrl.port, path, headers: { 'x-toolgate-token': token, ...(host === undefined ? {} : { host }) } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sent.on('error', reject);
    sent.end();
  });
}

async function serve(): Promise<{ gateway: ServedGateway; mcp: Client }> {
  const gateway = opened.gateway(await serveGateway({ mode: 'auto', servers: { md: { command: process.execPath, args: [MEDIA_SERVER], trust: 'annotations' } } }));
  const { client } = await connectClient(gateway.mcpUrl, 'media-client', undefined, gateway.auth);
  return { gateway, mcp: opened.client(client) };
}

/** Call `tool` and wait for its receipt in the console; the hex digest of its one attachment. */
async function attachmentOf(gateway: ServedGateway, mcp: Client, tool: string, args: Record<string, unknown> = {}): Promise<{ hex: string; mediaType: string }> {
  await mcp.callTool({ name: `mcp_md_${tool}`, arguments: args });
  let found: { handle: string; mediaType: string } | undefined;
  await expect
    .poll(
      async () => {
        const rows = (await gateway.api(`/api/receipts?tool=mcp_md_${tool}`)).body as { attachments?: { handle: string; mediaType: string }[] }[];
        found = rows[0]?.attachments?.[0];
        return found;
      },
      { timeout: 15_000 },
    )
    .toBeDefined();
  const attachment = found as { handle: string; mediaType: string };
  return { hex: attachment.handle.slice('media:sha256:'.length), mediaType: attachment.mediaType };
}

function expectMediaHeaders(fetched: Fetched): void {
  expect(fetched.headers.get('x-content-type-options')).toBe('nosniff');
  expect(fetched.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
  expect(fetched.headers.get('cache-control')).toBe('no-store');
  expect(fetched.headers.get('access-control-allow-origin')).toBeNull();
}

/** Served as a download of opaque bytes: never an image, never a page. */
function expectDownload(fetched: Fetched, hex: string): void {
  expect(fetched.status).toBe(200);
  expect(fetched.headers.get('content-type')).toBe('application/octet-stream');
  expect(fetched.headers.get('content-disposition')).toBe(`attachment; filename="${hex}.bin"`);
  expectMediaHeaders(fetched);
}

describe('attack: the console serves the media a call returned', () => {
  it('serves a PNG a receipt lists as image/png, byte for byte, with headers that let it be nothing else', async () => {
    const { gateway, mcp } = await serve();
    const { hex, mediaType } = await attachmentOf(gateway, mcp, 'picture', { width: 40, height: 30 });
    expect(mediaType).toBe('image/png');
    const fetched = await fetchMedia(gateway, `/api/media/${hex}`);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('image/png');
    expect(fetched.headers.get('content-disposition')).toBeNull();
    expectMediaHeaders(fetched);
    expect(createHash('sha256').update(fetched.bytes).digest('hex')).toBe(hex);
  }, 60_000);

  it('refuses bytes the store holds that no receipt lists, and every request without the token or with another Host', async () => {
    const { gateway, mcp } = await serve();
    const { hex } = await attachmentOf(gateway, mcp, 'picture', { width: 2, height: 2 });
    // Another file in the store, well formed and content-addressed, that no call of this journal returned.
    const other = Buffer.from('a secret some other tool stored');
    const otherHex = createHash('sha256').update(other).digest('hex');
    const media = join(gateway.workspace, '.toolgate', 'spill', 'media');
    writeFileSync(join(media, otherHex), other);
    writeFileSync(join(media, `${otherHex}.type`), 'image/png');
    expect((await fetchMedia(gateway, `/api/media/${otherHex}`)).status).toBe(404);
    expect((await fetchMedia(gateway, `/api/media/${'0'.repeat(64)}`)).status).toBe(404);

    const consoleUrl = gateway.consoleUrl as URL;
    const anonymous = await fetch(new URL(`/api/media/${hex}`, consoleUrl));
    expect(anonymous.status).toBe(401);
    // The page's address carries the token for the page alone, never for the API.
    expect((await fetch(new URL(`/api/media/${hex}?token=${consoleUrl.searchParams.get('token') ?? ''}`, consoleUrl))).status).toBe(401);
    expect(await rawRequest(gateway, `/api/media/${hex}`, `evil.example:${consoleUrl.port}`)).toBe(421);
    expect(await rawRequest(gateway, `/api/media/${hex}`)).toBe(200);
  }, 60_000);

  it('never serves HTML or SVG declared as image/png, nor image/svg+xml, as an image or a page', async () => {
    const { gateway, mcp } = await serve();
    for (const tool of ['html_as_png', 'svg_as_png']) {
      const { hex, mediaType } = await attachmentOf(gateway, mcp, tool);
      expect(mediaType).toBe('image/png');
      expectDownload(await fetchMedia(gateway, `/api/media/${hex}`), hex);
    }
    const { hex, mediaType } = await attachmentOf(gateway, mcp, 'svg_image');
    expect(mediaType).toBe('image/svg+xml');
    const svg = await fetchMedia(gateway, `/api/media/${hex}`);
    expectDownload(svg, hex);
    expect(svg.bytes.toString()).toContain('<svg');
  }, 60_000);

  it('answers no spelling of the route but 64 lower-case hex digits', async () => {
    const { gateway, mcp } = await serve();
    const { hex } = await attachmentOf(gateway, mcp, 'picture', { width: 2, height: 2 });
    for (const path of [
      `/api/media/${hex.toUpperCase()}`,
      `/api/media/${hex}.png`,
      `/api/media/${hex}/`,
      `/api/media/${hex.slice(1)}`,
      `/api/media/${hex}0`,
      `/api/media/media:sha256:${hex}`,
      `/api/media/../media/${hex}x`,
      `/api/media/%2e%2e/${hex}`,
      `/api/media/${hex}%00`,
      '/api/media/',
      '/api/media/../',
    ]) {
      expect([path, await rawRequest(gateway, path)]).toEqual([path, 404]);
    }
    expect(await rawRequest(gateway, `/api/media/${hex}`)).toBe(200);
  }, 60_000);
});
