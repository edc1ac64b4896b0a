import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace } from './support/attack-workspace.js';
import { CLI } from './support/spawn-cli.js';

// An upstream screenshot tool called again and again, through `toolgate serve --stdio` and the MCP SDK client
// (test/__fixtures__/media-server.mjs): each screenshot is new bytes, kept in the gateway's media store by their digest.
// A read asks no one, and the spill store is bounded (attack-spill-flood.test.ts); the media store was not. Before:
// 24 screenshots of 6 MB left 144 MB in `.toolgate/spill/media`, growing at the speed of the calls.

const MEDIA = join(ROOT, 'test/__fixtures__/media-server.mjs');
const MB = 1024 * 1024;

const folderBytes = (folder: string): number => readdirSync(folder).reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);

describe('attack: a screenshot tool called again and again', () => {
  let client: Client | undefined;
  afterAll(async () => {
    await client?.close();
  });

  it('keeps at most the media store budget (128 MiB) of media, the newest sent whole', async () => {
    const served = attackWorkspace('toolgate-attack-media-flood', { media: { command: process.execPath, args: [MEDIA], trust: 'annotations' } });
    client = new Client({ name: 'media-flooder', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }));
    let last: Awaited<ReturnType<Client['callTool']>> | undefined;
    for (let call = 0; call < 24; call += 1) {
      last = await client.callTool({ name: 'mcp_media_screenshot', arguments: { bytes: 6_000_000, fresh: true } }, undefined, { timeout: 60_000 });
      expect(last.isError, `call ${call}`).not.toBe(true);
    }
    const image = (last?.content as { type: string; data?: string }[]).find((block) => block.type === 'image');
    expect(Buffer.from(image?.data ?? '', 'base64')).toHaveLength(6_000_000);
    expect(folderBytes(join(served.workspace, '.toolgate', 'spill', 'media'))).toBeLessThanOrEqual(128 * MB);
  }, 240_000);
});

describe('attack: one result that holds thousands of tiny images', () => {
  let client: Client | undefined;
  afterAll(async () => {
    await client?.close();
  });

  it('is refused at once, storing none of them', async () => {
    // Before: 5,000 images of a few bytes took 6.5 s and left 10,000 files in the media store, whatever its byte budget;
    // one 10 MiB message holds 150,000 of them.
    const served = attackWorkspace('toolgate-attack-media-many', { media: { command: process.execPath, args: [MEDIA], trust: 'annotations' } });
    client = new Client({ name: 'media-many', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }));
    const media = join(served.workspace, '.toolgate', 'spill', 'media');
    const before = readdirSync(media).length;
    const started = performance.now();
    const result = await client.callTool({ name: 'mcp_media_many_images', arguments: { count: 5_000 } }, undefined, { timeout: 60_000 });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]?.text).toBe('Tool "mcp_media_many_images" failed: the MCP server sent a malformed result (content holds more than 256 media blocks).');
    expect(readdirSync(media).length).toBe(before);
    // Within the bound they are stored and sent.
    const few = await client.callTool({ name: 'mcp_media_many_images', arguments: { count: 3 } });
    expect((few.content as { type: string }[]).filter((block) => block.type === 'image')).toHaveLength(3);
  }, 60_000);
});
