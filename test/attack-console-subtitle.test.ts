import { describe, expect, it } from 'vitest';
import { useChromium } from './support/chromium.js';
import { decide, pendingApproval } from './support/pending-approval.js';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

/*
 * A card wraps every argument, path, argv element and body, so no long line
 * pushes the end of what is approved out of view. The line under the tool's
 * title did not wrap: an `http_request`'s headers are drawn there as one JSON
 * text without a space, and a header of 8,000 characters put the
 * `overwrite: T` after it (replace what is there) 67,000 pixels to the right
 * of the window, where nobody reads before pressing "Approve once".
 */

const opened = closeAfterEach();

describe('attack, in the browser: a header pushed out of sight on the line under the title', () => {
  const browser = useChromium();

  it('draws every header of a request inside the window', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'ask', policy: { allowedDomains: ['uploads.example.com'] } }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth)).client);
    const call = mcp.callTool({ name: 'http_request', arguments: { method: 'PUT', url: 'https://uploads.example.com/reports/q3.pdf', headers: { 'x-trace': 'a'.repeat(8_000), overwrite: 'T' }, body: 'report' } });
    const card = await pendingApproval(gateway, 'http_request');
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(String(gateway.consoleUrl));
    await page.getByRole('button', { name: /Approvals/ }).click();
    await page.locator('[data-approval]').waitFor();
    const placed = await page.evaluate<number[]>(`(() => {
      const spots = [];
      const walker = document.createTreeWalker(document.getElementById('approvals'), NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        const at = node.textContent.indexOf('"overwrite"');
        if (at === -1 || node.parentElement.closest('details:not([open])')) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + '"overwrite"'.length);
        spots.push(Math.max(...[...range.getClientRects()].map((rect) => rect.right)));
      }
      return spots;
    })()`);
    expect(placed.length).toBeGreaterThanOrEqual(1);
    for (const right of placed) expect(right).toBeLessThanOrEqual(1280);
    expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await decide(gateway, card.id, 'reject');
    expect((await call).isError).toBe(true);
    await page.close();
  });
});
