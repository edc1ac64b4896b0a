// The console in Chromium over `toolgate serve` with an upstream whose tools answer with media
// (test/__fixtures__/media-server.mjs): a receipt that lists a PNG shows it as a thumbnail, a click shows it
// full size, and an attachment that is no image is a line of text.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { useChromium } from './support/chromium.js';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

/** What the tests read of an `<img>` in the page. */
interface Picture {
  readonly complete: boolean;
  readonly naturalWidth: number;
  readonly naturalHeight: number;
  readonly width: number;
  readonly height: number;
}

const MEDIA_SERVER = join(ROOT, 'test/__fixtures__/media-server.mjs');
const browser = useChromium();
const opened = closeAfterEach();

describe('the console shows the pictures a call returned', () => {
  it('shows a PNG attachment as a lazy thumbnail of its natural size, full size on a click, and other media as text', async () => {
    const gateway = opened.gateway(await serveGateway({ mode: 'auto', servers: { md: { command: process.execPath, args: [MEDIA_SERVER], trust: 'annotations' } } }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'media-client', undefined, gateway.auth)).client);
    await mcp.callTool({ name: 'mcp_md_picture', arguments: { width: 40, height: 30 } });
    await mcp.callTool({ name: 'mcp_md_document', arguments: {} });
    await mcp.callTool({ name: 'mcp_md_html_as_png', arguments: {} });

    const page = await browser().newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(String(gateway.consoleUrl));
    await page.getByRole('button', { name: /Receipts/ }).click();
    const row = (tool: string) => page.locator('#receipts tr', { hasText: tool }).first();
    await row('mcp_md_picture').waitFor({ timeout: 20_000 });
    await row('mcp_md_picture').click();

    const thumbnail = page.locator('#receipt-detail img.media-thumb');
    await thumbnail.waitFor({ timeout: 20_000 });
    expect(await thumbnail.getAttribute('loading')).toBe('lazy');
    expect(await thumbnail.getAttribute('src')).toMatch(/^\/api\/media\/[0-9a-f]{64}$/);
    await expect.poll(() => thumbnail.evaluate((image: Picture) => [image.complete, image.naturalWidth, image.naturalHeight]), { timeout: 10_000 }).toEqual([true, 40, 30]);
    await expect.poll(() => page.locator('#receipt-detail').textContent()).toMatch(/image\/png · 81 bytes · media:sha256:[0-9a-f]{64}/);

    await thumbnail.click();
    const full = page.locator('dialog#media-full[open] img');
    await full.waitFor({ timeout: 10_000 });
    await expect.poll(() => full.evaluate((image: Picture) => [image.naturalWidth, image.naturalHeight, image.width, image.height])).toEqual([40, 30, 40, 30]);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('dialog#media-full[open]').count()).toBe(0);

    // A document is a line: its type, size and handle, as text.
    await row('mcp_md_document').click();
    await expect.poll(() => page.locator('#receipt-detail').textContent(), { timeout: 20_000 }).toMatch(/application\/pdf · 26 bytes · media:sha256:[0-9a-f]{64}/);
    expect(await page.locator('#receipt-detail img').count()).toBe(0);

    // HTML that claims to be a PNG: the browser is never given it as an image, and it runs nothing.
    await row('mcp_md_html_as_png').click();
    const lying = page.locator('#receipt-detail img.media-thumb');
    await lying.waitFor({ timeout: 20_000 });
    await expect.poll(() => lying.evaluate((image: Picture) => [image.complete, image.naturalWidth])).toEqual([true, 0]);
    expect(await page.title()).toBe('toolgate console');
    expect(violations).toEqual([]);
  }, 120_000);
});
