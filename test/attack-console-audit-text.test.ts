import { describe, expect, it } from 'vitest';
import { useChromium } from './support/chromium.js';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

/*
 * The approval card writes out every character that hides or reorders text
 * (`⟨U+202E⟩`), but the audit view placed a receipt's arguments, its output
 * summary, its tool, agent and code as they were. A model that wrote a
 * right-to-left override into what it sent, or into a file it then read,
 * had the receipts list and a receipt's detail read as something else than
 * what the call carried: `rm -rf ‮gol.pmt` reads as `rm -rf tmp.log`.
 */

const opened = closeAfterEach();
const HIDDEN = /[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff]/;

describe('attack, in the browser: the audit view draws what a model wrote reordered', () => {
  const browser = useChromium();

  it("writes out the hidden characters of a receipt's arguments and output summary, in the list and the detail", async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'accept-edits' }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const content = 'cleanup: rm -rf \u202egol.pmt\u202c done\u200b\n';
    expect((await mcp.callTool({ name: 'write_file', arguments: { path: 'notes.md', content } })).isError).toBeFalsy();
    expect((await mcp.callTool({ name: 'read_file', arguments: { path: 'notes.md' } })).isError).toBeFalsy();

    const page = await browser().newPage();
    await page.goto(String(gateway.consoleUrl));
    await page.getByRole('button', { name: 'Receipts' }).click();
    await expect.poll(() => page.locator('#receipts tr').count(), { timeout: 20_000 }).toBe(2);
    // The read's output summary holds the file's text: written out in the list.
    const listed = (await page.locator('#receipts').textContent()) ?? '';
    expect(listed).toContain('\u27e8U+202E\u27e9');
    expect(listed).not.toMatch(HIDDEN);
    for (const tool of ['write_file', 'read_file']) {
      await page.locator('#receipts tr', { hasText: tool }).click();
      await expect.poll(() => page.locator('#receipt-detail').textContent()).toContain(tool);
      const detail = (await page.locator('#receipt-detail').textContent()) ?? '';
      expect(detail, tool).toContain('\u27e8U+202E\u27e9');
      expect(detail, tool).not.toMatch(HIDDEN);
    }
    await page.close();
  });
});
