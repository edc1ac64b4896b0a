import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry, defineTool, requireCapability, withAttachments, type ToolPolicy } from '../core/internal.js';
import { createMediaStore } from '../node/stores/create-media-store.js';
import { createApprovalQueue } from './approval-queue.js';
import { startConsole } from './create-console-server.js';
import type { ConsoleServer } from './console-types.js';

const allowAll: ToolPolicy = { version: 1, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'allow', matched: [] }) };
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const HTML = new TextEncoder().encode('<!doctype html><script>alert(1)</script>');
const hexOf = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

describe('the console media route', () => {
  let server: ConsoleServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A console over the in-memory feed, with a tool that stores `bytes` as `mediaType` and returns it as an attachment. */
  async function consoleWith(withStore = true): Promise<{ server: ConsoleServer; shoot: (bytes: Uint8Array, mediaType: string) => Promise<void>; folder: string }> {
    const folder = join(mkdtempSync(join(tmpdir(), 'toolgate-console-media-')), 'media');
    const media = createMediaStore(folder);
    const shot = defineTool({
      name: 'shot',
      description: 'Store media and return them',
      input: z.object({ data: z.string(), mediaType: z.string() }),
      dispatch: async ({ data, mediaType }, host) => withAttachments('stored', [await requireCapability(host, 'mediaStore', 'shot').put(Buffer.from(data, 'base64'), mediaType)]),
    });
    const registry = createToolRegistry({ tools: [shot], host: { mediaStore: media }, policy: allowAll });
    server = await startConsole({ registry, approvals: createApprovalQueue(), ...(withStore ? { media } : {}) });
    const shoot = async (bytes: Uint8Array, mediaType: string): Promise<void> => {
      const outcome = await registry.dispatch({ callId: 'c', name: 'shot', arguments: { data: Buffer.from(bytes).toString('base64'), mediaType } }, { grantedTools: ['shot'] });
      expect(outcome.ok).toBe(true);
    };
    return { server, shoot, folder };
  }

  const get = (console: ConsoleServer, hex: string): Promise<Response> => fetch(`http://127.0.0.1:${console.port}/api/media/${hex}`, { headers: { 'x-toolgate-token': console.token } });

  it('serves a listed PNG as image/png, never sniffed, sandboxed, never cached', async () => {
    const { server, shoot } = await consoleWith();
    await shoot(PNG, 'image/png');
    const response = await get(server, hexOf(PNG));
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(PNG.length),
      'content-security-policy': "default-src 'none'; sandbox",
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    expect(response.headers.get('content-disposition')).toBeNull();
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PNG);
  });

  it('serves HTML declared as image/png and an SVG only as a download of opaque bytes', async () => {
    const { server, shoot } = await consoleWith();
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>');
    await shoot(HTML, 'image/png');
    await shoot(svg, 'image/svg+xml');
    for (const bytes of [HTML, svg]) {
      const response = await get(server, hexOf(bytes));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${hexOf(bytes)}.bin"`);
    }
  });

  it('refuses media no receipt lists, media changed in the store, and every medium when the console has no store', async () => {
    const { server, shoot, folder } = await consoleWith();
    await shoot(PNG, 'image/png');
    expect((await get(server, hexOf(HTML))).status).toBe(404);
    writeFileSync(join(folder, hexOf(PNG)), HTML);
    expect((await get(server, hexOf(PNG))).status).toBe(404);
    await server.close();

    const { server: storeless, shoot: shootElsewhere } = await consoleWith(false);
    await shootElsewhere(PNG, 'image/png');
    expect((await get(storeless, hexOf(PNG))).status).toBe(404);
  });
});
